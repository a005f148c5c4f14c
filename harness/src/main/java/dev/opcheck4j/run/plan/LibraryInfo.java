package dev.opcheck4j.run.plan;

import dev.opcheck4j.torch.OpSchema;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What a worker found in a loaded op library, as data the parent plans with.
 *
 * @param path the library file (real path)
 * @param ops the operators it defined, sorted by name
 * @param namespaces namespaces it registered anything in
 * @param dangling implementations in its namespaces of operators never defined
 */
public record LibraryInfo(Path path, List<Op> ops, List<String> namespaces, List<String> dangling) {
  public LibraryInfo {
    ops = List.copyOf(ops);
    namespaces = List.copyOf(namespaces);
    dangling = List.copyOf(dangling);
  }

  /**
   * One operator.
   *
   * @param name qualified name
   * @param schema its schema
   * @param dispatchKeys dispatch keys with a kernel
   * @param tags the op's tags ({@code pt2_compliant_tag}, ...), sorted
   */
  public record Op(String name, OpSchema schema, List<String> dispatchKeys, List<String> tags) {
    public Op {
      dispatchKeys = List.copyOf(dispatchKeys);
      tags = List.copyOf(tags);
    }
  }

  public List<String> opNames() {
    return ops.stream().map(Op::name).toList();
  }

  public Optional<Op> op(String name) {
    return ops.stream().filter(o -> o.name().equals(name)).findFirst();
  }
}
