package dev.opcheck4j.generate;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The source of every generated value: a sequence of bounded choices. Drawing records each choice;
 * replaying a (shrunk) sequence reproduces the value it describes. Past the end of a replayed
 * sequence every choice is 0, the simplest. Shrinking edits the sequence, never the value, so a
 * shrunk value is always one the generator could have produced (the Hypothesis design).
 */
public final class Choices {
  private final List<Long> prefix;
  private final SplittableRandom random;
  private final List<Long> recorded = new ArrayList<>();
  /** The one choice of {@code prefix} drawn at random instead ({@link #mutated}); -1 for none. */
  private final int mutate;

  private Choices(List<Long> prefix, SplittableRandom random) {
    this(prefix, random, -1);
  }

  private Choices(List<Long> prefix, SplittableRandom random, int mutate) {
    this.prefix = List.copyOf(prefix);
    this.random = random;
    this.mutate = mutate;
  }

  /**
   * Replays {@code sequence} with its choice {@code at} drawn at random from {@code seed} (within that choice's
   * own bounds), and every choice past its end too: one size, dtype, layout or salt of the input changed, and what
   * follows from it (coverage-guided generation, issue 54).
   */
  public static Choices mutated(List<Long> sequence, int at, long seed) {
    return new Choices(sequence, new SplittableRandom(seed), at);
  }

  /** Fresh random choices from {@code seed}. */
  public static Choices random(long seed) {
    return new Choices(List.of(), new SplittableRandom(seed));
  }

  /** Replays {@code sequence}; choices past its end are 0. */
  public static Choices replay(List<Long> sequence) {
    return new Choices(sequence, null);
  }

  /** A choice in {@code [0, max]}; 0 is the simplest. */
  public long draw(long max) {
    if (max < 0) {
      throw new IllegalArgumentException("max < 0: " + max);
    }
    int i = recorded.size();
    long v;
    if (i < prefix.size() && i != mutate) {
      v = Math.min(Math.max(prefix.get(i), 0), max);
    } else if (random != null) {
      v = max == Long.MAX_VALUE ? random.nextLong() & Long.MAX_VALUE : random.nextLong(max + 1);
    } else {
      v = 0;
    }
    recorded.add(v);
    return v;
  }

  /** An int in {@code [lo, hi]}, shrinking towards {@code lo}. */
  public long between(long lo, long hi) {
    return lo + draw(hi - lo);
  }

  /** True with probability 1/{@code oneIn}; false is the simpler. */
  public boolean rarely(int oneIn) {
    return draw(oneIn - 1) == oneIn - 1;
  }

  /** The choices made so far, as a replayable sequence. */
  public List<Long> sequence() {
    return List.copyOf(recorded);
  }
}
