package dev.opcheck4j.checks;

import dev.opcheck4j.torch.DispatchTable;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.UnknownOpException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a library registers, as plain data: per op, its schema and dispatch table. Checks that
 * conclude from this alone need no libtorch in their process.
 *
 * @param fileName the library's file name
 * @param schemas op name (with overload) to schema, in the library's order
 * @param tables op name to dispatch table
 */
public record LibraryView(String fileName, Map<String, OpSchema> schemas, Map<String, DispatchTable> tables) {
  public LibraryView {
    schemas = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(schemas));
    tables = Map.copyOf(tables);
  }

  /** The view of a library loaded in this process. */
  public static LibraryView of(OpLibrary library) {
    Map<String, OpSchema> schemas = new LinkedHashMap<>();
    Map<String, DispatchTable> tables = new LinkedHashMap<>();
    for (String name : library.ops()) {
      try {
        var op = library.op(name);
        schemas.put(name, op.schema());
        tables.put(name, op.table());
      } catch (UnknownOpException e) {
        throw new IllegalStateException(e);
      }
    }
    return new LibraryView(library.path().getFileName().toString(), schemas, tables);
  }
}
