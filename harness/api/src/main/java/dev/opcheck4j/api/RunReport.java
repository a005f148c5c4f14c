package dev.opcheck4j.api;

import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything one run produced, in the order it was produced.
 *
 * @param run how the run was made (versions, settings, devices, inputs, timing)
 * @param checks the metadata of the checks the run knew, in registry order (severity, summary); with
 *     {@link RunInfo#checksRun()} a reader tells "not run" from "not applicable"; empty when not known
 * @param results every result, in production order
 * @param coverage per op, family and device, what ran on how many inputs and what never ran; never null
 * @param kernelLines per op of a library built with gcov's coverage, the lines and branches its kernel ran; empty
 *     when no library was; never null
 */
public record RunReport(RunInfo run, List<CheckInfo> checks, List<CheckResult> results, Coverage coverage,
    List<KernelLines> kernelLines) {

  public RunReport {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(coverage, "coverage");
    checks = List.copyOf(checks);
    results = List.copyOf(results);
    kernelLines = List.copyOf(kernelLines);
  }

  /** A report of libraries built without coverage. */
  public RunReport(RunInfo run, List<CheckInfo> checks, List<CheckResult> results, Coverage coverage) {
    this(run, checks, results, coverage, List.of());
  }

  /** The same report with the kernels' line coverage. */
  public RunReport withKernelLines(List<KernelLines> lines) {
    return new RunReport(run, checks, results, coverage, lines);
  }

  /** A report whose coverage is the fold of its results. */
  public RunReport(RunInfo run, List<CheckInfo> checks, List<CheckResult> results) {
    this(run, checks, results, Coverage.of(results, run.tries()));
  }

  /** A report that knows only versions, timing and the checks' metadata. */
  public RunReport(String torchVersion, String presetsVersion, Instant startedAt, long durationMs,
      List<CheckResult> results, List<CheckInfo> checks) {
    this(RunInfo.minimal(torchVersion, presetsVersion, startedAt, durationMs), checks, results);
  }

  /** A report that knows only versions and timing, as v1 reports did. */
  public RunReport(
      String torchVersion, String presetsVersion, Instant startedAt, long durationMs, List<CheckResult> results) {
    this(torchVersion, presetsVersion, startedAt, durationMs, results, List.of());
  }

  /** The metadata of the check with this id, if the run knew it. */
  public Optional<CheckInfo> check(String id) {
    return checks.stream().filter(c -> c.id().equals(id)).findFirst();
  }

  public String torchVersion() {
    return run.torchVersion();
  }

  public String presetsVersion() {
    return run.presetsVersion();
  }

  public Instant startedAt() {
    return run.startedAt();
  }

  public long durationMs() {
    return run.durationMs();
  }

  /** Count of results per outcome; every outcome is present, possibly with zero. */
  public Map<Outcome, Integer> summary() {
    Map<Outcome, Integer> counts = new EnumMap<>(Outcome.class);
    for (Outcome o : Outcome.values()) {
      counts.put(o, 0);
    }
    for (CheckResult r : results) {
      counts.merge(r.outcome(), 1, Integer::sum);
    }
    return counts;
  }

  public int count(Outcome outcome) {
    return summary().get(outcome);
  }
}
