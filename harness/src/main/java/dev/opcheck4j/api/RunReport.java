package dev.opcheck4j.api;

import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything one run produced, in the order it was produced.
 *
 * @param run how the run was made (versions, settings, devices, inputs, timing)
 * @param checks the catalog of checks the run knew, in registry order (empty when not known)
 * @param results every result, in production order
 */
public record RunReport(RunInfo run, List<CheckInfo> checks, List<CheckResult> results) {

  public RunReport {
    Objects.requireNonNull(run, "run");
    checks = List.copyOf(checks);
    results = List.copyOf(results);
  }

  /** A report that knows only versions and timing, as v1 reports did. */
  public RunReport(
      String torchVersion, String presetsVersion, Instant startedAt, long durationMs, List<CheckResult> results) {
    this(RunInfo.minimal(torchVersion, presetsVersion, startedAt, durationMs), List.of(), results);
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
