package dev.opcheck4j.bench;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Of a run's ops, how many got a result of each outcome that is not a pass or a skip (failed, warning,
 * and whatever else the run's outcomes hold), and per check how many: what {@code bench composites}
 * prints, as issue 52 measured it ("120 of 200 ops get trace.specialization"). An op is counted once
 * per outcome however many of its results have it.
 *
 * @param ops the ops the run gave a result about
 * @param byOutcome per outcome, the ops that got it
 * @param byCheck per outcome, per check id (in first-seen order), the ops that got it from that check
 */
public record FindingShares(Set<String> ops, Map<Outcome, Set<String>> byOutcome,
    Map<Outcome, Map<String, Set<String>>> byCheck) {

  /** The shares of {@code results}; results about a library, not an op, are left out. */
  public static FindingShares of(List<CheckResult> results) {
    Set<String> ops = new TreeSet<>();
    Map<Outcome, Set<String>> byOutcome = new EnumMap<>(Outcome.class);
    Map<Outcome, Map<String, Set<String>>> byCheck = new EnumMap<>(Outcome.class);
    for (CheckResult r : results) {
      if (r.opOrNull() == null) {
        continue;
      }
      ops.add(r.op());
      if (r.outcome() == Outcome.PASSED || r.outcome() == Outcome.SKIPPED) {
        continue;
      }
      byOutcome.computeIfAbsent(r.outcome(), o -> new TreeSet<>()).add(r.op());
      byCheck.computeIfAbsent(r.outcome(), o -> new LinkedHashMap<>()).computeIfAbsent(r.check(), c -> new TreeSet<>())
          .add(r.op());
    }
    return new FindingShares(ops, byOutcome, byCheck);
  }

  /** How many ops got {@code outcome} from any check. */
  public int count(Outcome outcome) {
    return byOutcome.getOrDefault(outcome, Set.of()).size();
  }

  /** How many ops got {@code outcome} from {@code check}. */
  public int count(Outcome outcome, String check) {
    return byCheck.getOrDefault(outcome, Map.of()).getOrDefault(check, Set.of()).size();
  }

  /**
   * One line per outcome the ops got, worst first as {@link Outcome} lists them, each with its checks
   * (most ops first): {@code warning: 0 of 200 ops (0%)}; {@code note: 120 of 200 ops (60%):
   * trace.specialization 120, memory.cow-input 120}. The warning line is always there, also at zero.
   */
  public List<String> lines() {
    List<String> lines = new ArrayList<>();
    for (Outcome o : Outcome.values()) {
      if (o == Outcome.PASSED || o == Outcome.SKIPPED || o != Outcome.WARNING && count(o) == 0) {
        continue;
      }
      List<String> checks = new ArrayList<>();
      byCheck.getOrDefault(o, Map.of()).entrySet().stream()
          .sorted((a, b) -> Integer.compare(b.getValue().size(), a.getValue().size()))
          .forEach(e -> checks.add(e.getKey() + " " + e.getValue().size()));
      lines.add(String.format(java.util.Locale.ROOT, "%s: %d of %d ops (%.0f%%)%s", o.label(), count(o), ops.size(),
          ops.isEmpty() ? 0.0 : 100.0 * count(o) / ops.size(), checks.isEmpty() ? "" : ": " + String.join(", ", checks)));
    }
    return lines;
  }
}
