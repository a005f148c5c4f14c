package dev.opcheck4j.generate;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Shrinks a failing choice sequence to a simpler one that still fails. Every candidate is replayed
 * and replaced by the choices the replay actually consumed; it is kept only when that sequence is
 * shortlex smaller (shorter, or as long and smaller at the first difference) and still fails.
 * Passes, repeated until none helps: delete spans (8, 4, 2, 1 choices), zero a choice, lower a
 * choice by binary search, and redistribute: move value from a choice to a later one, so that
 * {@code a + b >= 10} reaches (0, 10) rather than (10, 0).
 */
public final class Shrinker {
  private final Predicate<Choices> fails;
  private final int budget;
  private int evaluations;
  private int steps;
  private List<Long> best;

  /**
   * @param fails whether the value generated from these choices still fails (deterministic)
   * @param budget the most evaluations to spend
   */
  public Shrinker(Predicate<Choices> fails, int budget) {
    this.fails = fails;
    this.budget = budget;
  }

  /**
   * The result.
   *
   * @param sequence the simplest failing sequence found
   * @param steps how many times a simpler failing sequence replaced the current one
   * @param evaluations evaluations spent
   */
  public record Result(List<Long> sequence, int steps, int evaluations) {
    /** How the minimal example's line ends: {@code (shrunk in 1 step)}, {@code (shrunk in 5 steps)}. */
    public static String shrunkIn(int steps) {
      return "(shrunk in " + steps + (steps == 1 ? " step)" : " steps)");
    }
  }

  public Result shrink(List<Long> failing) {
    best = List.copyOf(failing);
    boolean improved = true;
    while (improved && evaluations < budget) {
      int before = steps;
      deleteSpans();
      lowerEach();
      redistribute();
      improved = steps > before;
    }
    return new Result(best, steps, evaluations);
  }

  private void deleteSpans() {
    for (int size : new int[] {8, 4, 2, 1}) {
      for (int i = 0; i + size <= best.size() && evaluations < budget; ) {
        List<Long> c = new ArrayList<>(best.subList(0, i));
        c.addAll(best.subList(i + size, best.size()));
        if (!tryCandidate(c)) {
          i++;
        }
      }
    }
  }

  private void lowerEach() {
    for (int i = 0; i < best.size() && evaluations < budget; i++) {
      if (best.get(i) == 0 || tryCandidate(with(best, i, 0))) {
        continue;
      }
      // the smallest value at i that still fails: lo does not, hi does
      long lo = 0;
      long hi = best.get(i);
      while (hi - lo > 1 && evaluations < budget && i < best.size()) {
        long mid = lo + (hi - lo) / 2;
        if (tryCandidate(with(best, i, mid))) {
          hi = mid;
        } else {
          lo = mid;
        }
      }
    }
  }

  private void redistribute() {
    for (int i = 0; i < best.size() && evaluations < budget; i++) {
      for (int j = i + 1; j < Math.min(best.size(), i + 9) && evaluations < budget; j++) {
        long a = best.get(i);
        long b = best.get(j);
        if (a == 0 || tryCandidate(with(with(best, i, 0), j, b + a))) {
          continue;
        }
        // the most that can move from i to j while still failing: lo does, hi does not
        long lo = 0;
        long hi = a;
        while (hi - lo > 1 && evaluations < budget) {
          long k = lo + (hi - lo) / 2;
          if (j < best.size() && best.get(i) == a - lo && tryCandidate(with(with(best, i, a - k), j, b + k))) {
            lo = k;
          } else {
            hi = k;
          }
        }
      }
    }
  }

  /** Replays the candidate; keeps what it consumed when that is simpler than the best and fails. */
  private boolean tryCandidate(List<Long> candidate) {
    evaluations++;
    Choices replay = Choices.replay(candidate);
    if (!fails.test(replay)) {
      return false;
    }
    List<Long> consumed = replay.sequence();
    if (!simpler(consumed, best)) {
      return false;
    }
    best = consumed;
    steps++;
    return true;
  }

  /** Shortlex order: shorter first, then the first differing choice smaller. */
  static boolean simpler(List<Long> a, List<Long> b) {
    if (a.size() != b.size()) {
      return a.size() < b.size();
    }
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).equals(b.get(i))) {
        return a.get(i) < b.get(i);
      }
    }
    return false;
  }

  private static List<Long> with(List<Long> seq, int i, long v) {
    List<Long> out = new ArrayList<>(seq);
    if (i < out.size()) {
      out.set(i, v);
    }
    return out;
  }
}
