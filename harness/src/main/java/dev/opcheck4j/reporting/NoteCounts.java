package dev.opcheck4j.reporting;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A run's notes as a console shows them: not one by one (a note check may note most ops of a library,
 * and a channel that speaks on every op gets ignored) but in one line, each check with the number of ops
 * it noted, most first: {@code note: trace.specialization on 120 of 200 ops, memory.cow-input on 118
 * (--strict makes notes warnings; the reports list them)}. The command line and the JUnit engine print it.
 *
 * @param byCheck per check that noted ops, the ops (or libraries) it noted
 * @param ops how many ops the run gave results about
 */
public record NoteCounts(Map<String, Set<String>> byCheck, int ops) {

  /** The notes among {@code results}. */
  public static NoteCounts of(List<CheckResult> results) {
    Map<String, Set<String>> byCheck = new LinkedHashMap<>();
    Set<String> ops = new TreeSet<>();
    for (CheckResult r : results) {
      if (r.opOrNull() != null) {
        ops.add(r.op());
      }
      if (r.outcome() == Outcome.NOTE) {
        byCheck.computeIfAbsent(r.check(), c -> new TreeSet<>()).add(r.library() != null ? r.library() : r.op());
      }
    }
    return new NoteCounts(byCheck, ops.size());
  }

  /**
   * The line, or nothing when the run noted nothing.
   *
   * @param strict how this front end makes notes warnings ({@code --strict})
   * @param listed where each note can be read ({@code the reports list them})
   */
  public Optional<String> line(String strict, String listed) {
    if (byCheck.isEmpty()) {
      return Optional.empty();
    }
    List<String> parts = new ArrayList<>();
    byCheck.entrySet().stream()
        .sorted(Comparator.comparing((Map.Entry<String, Set<String>> e) -> -e.getValue().size()))
        .forEach(e -> parts.add(e.getKey() + " on " + e.getValue().size()
            + (parts.isEmpty() ? " of " + ops + (ops == 1 ? " op" : " ops") : "")));
    return Optional.of("note: " + String.join(", ", parts) + " (" + strict + " makes notes warnings; " + listed + ")");
  }
}
