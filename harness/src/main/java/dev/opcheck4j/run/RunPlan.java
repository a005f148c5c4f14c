package dev.opcheck4j.run;

import dev.opcheck4j.checks.Check;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.SchemaBaseline;
import java.util.List;

/**
 * What to run: which ops of which libraries, on which devices, with which checks.
 *
 * @param targets libraries with the op entries to check
 * @param devices devices under test, in order (an unavailable one gives Skipped results)
 * @param checks checks to run, in registry order
 * @param seed seed for everything drawn at random
 * @param tries generated inputs per op and device (0: examples only)
 * @param warningsAsErrors whether findings of warning checks are failures ({@code --warnings-as-errors})
 * @param baseline the schema baseline the libraries are compared against ({@code --baseline}), or null
 */
public record RunPlan(
    List<Target> targets, List<Device> devices, List<Check> checks, long seed, int tries, boolean warningsAsErrors,
    SchemaBaseline baseline) {
  public RunPlan {
    targets = List.copyOf(targets);
    devices = List.copyOf(devices);
    checks = List.copyOf(checks);
  }

  public RunPlan(
      List<Target> targets, List<Device> devices, List<Check> checks, long seed, int tries, boolean warningsAsErrors) {
    this(targets, devices, checks, seed, tries, warningsAsErrors, null);
  }

  /** A plan in which warnings stay warnings (unless a target's spec says otherwise). */
  public RunPlan(List<Target> targets, List<Device> devices, List<Check> checks, long seed, int tries) {
    this(targets, devices, checks, seed, tries, false);
  }

  /**
   * One library and its op entries.
   *
   * @param library the loaded library
   * @param ops op entries; every op the library registers when no spec names them
   * @param source how the command line named it, for rerun lines: {@code --spec FILE} or {@code --library LIB}
   * @param warningsAsErrors whether its spec makes warnings failures ({@code "warnings-as-errors": true})
   */
  public record Target(OpLibrary library, List<OpSpec> ops, String source, boolean warningsAsErrors) {
    public Target {
      ops = List.copyOf(ops);
    }

    public Target(OpLibrary library, List<OpSpec> ops, String source) {
      this(library, ops, source, false);
    }

    /** Every op the library registers, with no spec. */
    public static Target allOps(OpLibrary library) {
      return new Target(library, library.ops().stream().map(OpSpec::bare).toList(), "--library " + library.path());
    }
  }
}
