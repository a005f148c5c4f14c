package dev.opcheck4j.spec;

import java.util.ArrayList;
import java.nio.file.Path;
import java.util.List;

/**
 * A parsed spec file.
 *
 * @param file the spec file
 * @param library the op library it describes, resolved against the spec's folder
 * @param ops op entries in file order
 * @param warningsAsErrors whether findings that are warnings fail the run ({@code "warnings-as-errors": true})
 * @param strict whether findings of note checks are warnings ({@code "strict": true})
 * @param runtimes the libtorch versions the library claims ({@code "runtimes": ["2.10.0", "2.13.0"]}), each checked
 *     on workers of its own when the run names none ({@code --runtime}); empty: not said
 * @param packages the AOTInductor packages the library must keep serving ({@code "packages"}, docs/aoti.md); empty:
 *     none
 * @param minLineCoverage its {@code "min-line-coverage"}: the least share of its ops' kernel lines, in percent, that
 *     must run (a library built with coverage), or null
 * @param allTries whether every generated try of its ops is made ({@code "all-tries": true}), not only while they
 *     find new ground
 */
public record SpecFile(Path file, Path library, List<OpSpec> ops, boolean warningsAsErrors, boolean strict,
    List<String> runtimes, List<PackageEntry> packages, Double minLineCoverage, boolean allTries) {
  public SpecFile {
    ops = List.copyOf(ops);
    runtimes = List.copyOf(runtimes);
    packages = List.copyOf(packages);
  }

  /** A spec whose ops' tries are a ceiling. */
  public SpecFile(Path file, Path library, List<OpSpec> ops, boolean warningsAsErrors, boolean strict,
      List<String> runtimes, List<PackageEntry> packages, Double minLineCoverage) {
    this(file, library, ops, warningsAsErrors, strict, runtimes, packages, minLineCoverage, false);
  }

  /** A spec that sets no minimum line coverage. */
  public SpecFile(Path file, Path library, List<OpSpec> ops, boolean warningsAsErrors, boolean strict,
      List<String> runtimes, List<PackageEntry> packages) {
    this(file, library, ops, warningsAsErrors, strict, runtimes, packages, null);
  }

  /** A spec that is not strict and names no packages. */
  public SpecFile(Path file, Path library, List<OpSpec> ops, boolean warningsAsErrors, List<String> runtimes) {
    this(file, library, ops, warningsAsErrors, false, runtimes, List.of());
  }

  /** A spec that names no runtimes: the run's own. */
  public SpecFile(Path file, Path library, List<OpSpec> ops, boolean warningsAsErrors) {
    this(file, library, ops, warningsAsErrors, List.of());
  }

  public SpecFile(Path file, Path library, List<OpSpec> ops) {
    this(file, library, ops, false);
  }

  /** The entries whose op is in {@code names}, or all of them when {@code names} is empty. */
  public List<OpSpec> selectOps(List<String> names) {
    return select(ops, names);
  }

  /** Whether {@code name} is {@code ns::*}: every op of namespace {@code ns}. */
  public static boolean isNamespace(String name) {
    return name.endsWith("::*");
  }

  /** The namespace {@code ns} of {@code ns::*}. */
  public static String namespace(String name) {
    return name.substring(0, name.length() - "::*".length());
  }

  /** Whether the {@code --op} value {@code name} selects {@code op}: its name, or {@code ns::*} of its namespace. */
  public static boolean names(String name, String op) {
    return name.equals(op) || isNamespace(name) && op.startsWith(namespace(name) + "::");
  }

  public static List<OpSpec> select(List<OpSpec> ops, List<String> names) {
    if (names.isEmpty()) {
      return ops;
    }
    List<OpSpec> selected = ops.stream().filter(o -> names.stream().anyMatch(n -> names(n, o.op()))).toList();
    // a --op that names nothing here is not silently dropped: it is checked (and reported unknown)
    List<OpSpec> missing =
        names.stream()
            .filter(n -> !isNamespace(n) && ops.stream().noneMatch(o -> o.op().equals(n)))
            .map(OpSpec::bare)
            .toList();
    List<OpSpec> all = new ArrayList<>(selected);
    all.addAll(missing);
    return all;
  }
}
