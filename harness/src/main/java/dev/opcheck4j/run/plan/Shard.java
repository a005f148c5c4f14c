package dev.opcheck4j.run.plan;

import dev.opcheck4j.run.shard.OpTimings;
import dev.opcheck4j.run.shard.ShardPacking;
import java.util.List;

/**
 * Part {@code index} (1-based) of {@code count} of the ops; library-wide checks belong to part 1.
 * With {@code timings} the ops are packed into the parts by their measured cost, else op {@code k}
 * of the unsharded plan belongs to part {@code k % count + 1} ({@link ShardPacking}).
 *
 * @param timings a past run's cost per op, or null to split by index
 */
public record Shard(int index, int count, OpTimings timings) {
  public static final Shard ALL = new Shard(1, 1);

  public Shard {
    if (count < 1 || index < 1 || index > count) {
      throw new IllegalArgumentException("shard must be I/N with 1 <= I <= N, got " + index + "/" + count);
    }
  }

  public Shard(int index, int count) {
    this(index, count, null);
  }

  /** Parses {@code I/N}. */
  public static Shard parse(String text) {
    int slash = text.indexOf('/');
    try {
      if (slash > 0) {
        return new Shard(Integer.parseInt(text.substring(0, slash)), Integer.parseInt(text.substring(slash + 1)));
      }
    } catch (NumberFormatException e) {
      // falls through to the message below
    }
    throw new IllegalArgumentException("--shard takes I/N (e.g. 1/2), got '" + text + "'");
  }

  /** The same part, its ops packed by {@code t}'s times (null: by index). */
  public Shard by(OpTimings t) {
    return new Shard(index, count, t);
  }

  /** Which part checks which of {@code ops} (names in plan order) of a run of {@code libraries} (file names). */
  public ShardPacking pack(List<String> libraries, List<String> ops) {
    return ShardPacking.of(index, count, timings, libraries, ops);
  }

  @Override
  public String toString() {
    return index + "/" + count;
  }
}
