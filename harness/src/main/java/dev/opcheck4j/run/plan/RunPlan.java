package dev.opcheck4j.run.plan;

import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.PackageEntry;
import dev.opcheck4j.torch.AotiPackage;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.SchemaBaseline;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What to run: which ops of which libraries, on which devices, with which checks.
 *
 * @param targets libraries with the op entries to check
 * @param devices devices under test, in order (an unavailable one gives Skipped results)
 * @param checks checks to run, in registry order
 * @param seed seed for everything drawn at random
 * @param tries generated inputs per op and device (0: examples only)
 * @param severity what a finding is: whether warnings are failures ({@code --warnings-as-errors})
 * @param timeout deadline of one unit, unless the op's spec gives its own
 * @param baseline the schema baseline the libraries are compared against, or null
 * @param require check families that must run on every op ({@code --require}); a spec may add its own
 * @param repro where each failure is written as a PyTorch script ({@code --repro}), or null for nowhere
 */
public record RunPlan(List<Target> targets, List<Device> devices, List<Check> checks, long seed, int tries,
    SeverityPolicy severity, Duration timeout, SchemaBaseline baseline, List<String> require, Path repro) {
  public RunPlan {
    require = List.copyOf(require);
    targets = List.copyOf(targets);
    devices = List.copyOf(devices);
    checks = List.copyOf(checks);
  }

  /** A plan that requires no family to run. */
  public RunPlan(List<Target> targets, List<Device> devices, List<Check> checks, long seed, int tries,
      SeverityPolicy severity, Duration timeout, SchemaBaseline baseline) {
    this(targets, devices, checks, seed, tries, severity, timeout, baseline, List.of(), null);
  }

  public RunPlan(List<Target> targets, List<Device> devices, List<Check> checks, long seed, int tries,
      SeverityPolicy severity, Duration timeout) {
    this(targets, devices, checks, seed, tries, severity, timeout, null);
  }

  /** A plan in which warnings stay warnings (unless a target's spec says otherwise), with the default deadline. */
  public RunPlan(List<Target> targets, List<Device> devices, List<Check> checks, long seed, int tries) {
    this(targets, devices, checks, seed, tries, SeverityPolicy.DEFAULT, RunRequest.DEFAULT_TIMEOUT);
  }

  /**
   * One library and its op entries.
   *
   * @param library what the worker found in the library
   * @param ops op entries; every op the library registers when no spec names them
   * @param source how the command line named it, for rerun lines: {@code --spec FILE} or {@code --library LIB}
   * @param index its position among the run's targets (the worker's index for it)
   * @param severity its spec's policy: whether it makes warnings failures ({@code "warnings-as-errors": true})
   * @param packages the AOTInductor packages checked with its library-wide checks: its spec's, and for the first
   *     target the run's {@code --package} ones
   * @param minLineCoverage the least share of an op's kernel lines, in percent, that must run ({@code
   *     --min-line-coverage}, or the spec's {@code "min-line-coverage"}, which wins), or null for none
   * @param allTries whether every generated try is made ({@code --all-tries}, or the spec's {@code "all-tries"}),
   *     not only while they find new ground
   */
  public record Target(LibraryInfo library, List<OpSpec> ops, String source, int index, SeverityPolicy severity,
      List<Package> packages, Double minLineCoverage, boolean allTries) {
    public Target {
      ops = List.copyOf(ops);
      packages = List.copyOf(packages);
    }

    /** A target whose tries are a ceiling. */
    public Target(LibraryInfo library, List<OpSpec> ops, String source, int index, SeverityPolicy severity,
        List<Package> packages, Double minLineCoverage) {
      this(library, ops, source, index, severity, packages, minLineCoverage, false);
    }

    /** A target with no packages and no minimum line coverage. */
    public Target(LibraryInfo library, List<OpSpec> ops, String source, int index, SeverityPolicy severity) {
      this(library, ops, source, index, severity, List.of(), null);
    }
  }

  /**
   * An AOTInductor package the libraries must keep serving, read before the run.
   *
   * @param entry what named it (its inputs, expected outputs and baseline)
   * @param read the package as read in plain Java
   * @param builtWith the schema baseline of the release it was compiled with: its entry's, else the run's, or null
   */
  public record Package(PackageEntry entry, AotiPackage read, SchemaBaseline builtWith) {}
}
