package dev.opcheck4j.junit;

import dev.opcheck4j.checks.BuiltinChecks;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.SpecValue;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Known failures of real ops, versioned with the code: {@code {"ns::op": {"check.id": "reason"}}}.
 * A listed failure passes the suite; a listed check that passes fails it (remove the entry), as
 * opcheck's failures dict does.
 *
 * @param entries op to check id to reason
 * @param locations op to where the file names it ({@code file:line:column}), for errors
 */
public record ExpectedFailures(Map<String, Map<String, String>> entries, Map<String, String> locations) {
  public static final ExpectedFailures NONE = new ExpectedFailures(Map.of());

  public ExpectedFailures {
    entries = Map.copyOf(entries);
    locations = Map.copyOf(locations);
  }

  public ExpectedFailures(Map<String, Map<String, String>> entries) {
    this(entries, Map.of());
  }

  public static ExpectedFailures read(Path file) throws SpecException {
    SpecValue root = SpecReader.parseTree(file.toAbsolutePath().normalize());
    if (!root.isObject()) {
      throw new SpecException(root.location(), "expected failures are an object {\"ns::op\": {\"check.id\": \"reason\"}}");
    }
    Map<String, Map<String, String>> out = new LinkedHashMap<>();
    Map<String, String> where = new LinkedHashMap<>();
    for (Map.Entry<String, SpecValue> op : root.object().entrySet()) {
      where.put(op.getKey(), op.getValue().location());
      if (!op.getValue().isObject()) {
        throw new SpecException(op.getValue().location(), "\"" + op.getKey() + "\" maps check ids to reasons, got " + op.getValue().describe());
      }
      Map<String, String> checks = new LinkedHashMap<>();
      for (Map.Entry<String, SpecValue> c : op.getValue().object().entrySet()) {
        if (!c.getValue().isString() || ((String) c.getValue().value()).isBlank()) {
          throw new SpecException(c.getValue().location(), "each expected failure needs a reason string");
        }
        if (BuiltinChecks.byId(c.getKey()).isEmpty()) {
          throw new SpecException(c.getValue().location(), "\"" + c.getKey() + "\" under \"" + op.getKey()
              + "\" is not a check id; known: " + String.join(", ", BuiltinChecks.all().stream().map(x -> x.id()).toList()));
        }
        checks.put(c.getKey(), (String) c.getValue().value());
      }
      out.put(op.getKey(), checks);
    }
    return new ExpectedFailures(out, where);
  }

  /**
   * Checks that every op named here is one the library registers.
   *
   * @throws SpecException at the first op it does not, naming it and the ops it does
   */
  public void requireOpsOf(dev.opcheck4j.run.plan.LibraryInfo library) throws SpecException {
    for (String op : entries.keySet()) {
      if (!library.opNames().contains(op) && !library.dangling().contains(op)) {
        throw new SpecException(locations.getOrDefault(op, "expected failures"), "\"" + op + "\" is not an op "
            + library.path().getFileName() + " registers; it registers: " + String.join(", ", library.opNames()));
      }
    }
  }

  public Optional<String> reason(String op, String check) {
    return Optional.ofNullable(entries.getOrDefault(op, Map.of()).get(check));
  }
}
