package dev.opcheck4j.api;

import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one run produced, in the order it was produced.
 *
 * @param torchVersion libtorch version the ops ran against
 * @param presetsVersion JavaCPP presets version
 * @param startedAt when the run started
 * @param durationMs wall time of the whole run
 * @param results every result, in production order
 * @param checks the metadata of the checks the run ran, in registry order (severity, summary)
 */
public record RunReport(
    String torchVersion,
    String presetsVersion,
    Instant startedAt,
    long durationMs,
    List<CheckResult> results,
    List<CheckInfo> checks) {

  public RunReport {
    results = List.copyOf(results);
    checks = List.copyOf(checks);
  }

  /** A report that names no check metadata. */
  public RunReport(String torchVersion, String presetsVersion, Instant startedAt, long durationMs, List<CheckResult> results) {
    this(torchVersion, presetsVersion, startedAt, durationMs, results, List.of());
  }

  /** The metadata of the check with this id, if the run ran it. */
  public java.util.Optional<CheckInfo> check(String id) {
    return checks.stream().filter(c -> c.id().equals(id)).findFirst();
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
