package dev.opcheck4j.run.shard;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which shard checks which op. By time (with {@link OpTimings}): the ops are taken largest measured
 * cost first and each goes to the shard with the least predicted time so far, the lowest index on a
 * tie (LPT, as PyTorch's CI packs its test shards by past durations); shard 1 starts with the
 * library-wide checks, which it always runs. An op the timings do not know (new since they were
 * taken) is costed at the mean of the ops they know. The same ops and timings give the same split.
 * By index (no timings): op {@code k} goes to shard {@code k mod N + 1}.
 *
 * @param index the shard this run checks (1-based)
 * @param count the number of shards
 * @param shardOf the shard (1-based) of each op, in plan order
 * @param predictedMicros the predicted time of each shard (index 0 is shard 1); zeros when by index
 * @param timings what the split is by; null when by index
 * @param unmeasured how many ops the timings did not know
 */
public record ShardPacking(int index, int count, List<Integer> shardOf, List<Long> predictedMicros, OpTimings timings,
    int unmeasured) {
  public ShardPacking {
    shardOf = List.copyOf(shardOf);
    predictedMicros = List.copyOf(predictedMicros);
  }


  /**
   * The split of {@code ops} (names in plan order) into {@code count} shards, by time when
   * {@code timings} is not null.
   *
   * @param libraries the file names of the run's libraries, whose library-wide checks shard 1 runs
   */
  public static ShardPacking of(int index, int count, OpTimings timings, List<String> libraries, List<String> ops) {
    int[] shardOf = new int[ops.size()];
    long[] predicted = new long[count];
    if (timings == null) {
      for (int k = 0; k < ops.size(); k++) {
        shardOf[k] = k % count + 1;
      }
      return new ShardPacking(index, count, boxed(shardOf), boxed(predicted), null, 0);
    }
    long known = 0;
    int measured = 0;
    for (String op : ops) {
      Long t = timings.ops().get(op);
      if (t != null) {
        known += t;
        measured++;
      }
    }
    long unknownCost = measured == 0 ? 0 : known / measured;
    long[] cost = new long[ops.size()];
    for (int k = 0; k < ops.size(); k++) {
      cost[k] = timings.ops().getOrDefault(ops.get(k), unknownCost);
    }
    for (String library : libraries) {
      predicted[0] += timings.libraries().getOrDefault(library, 0L);
    }
    List<Integer> order = new ArrayList<>();
    for (int k = 0; k < ops.size(); k++) {
      order.add(k);
    }
    order.sort(Comparator.<Integer>comparingLong(k -> cost[k]).reversed().thenComparingInt(k -> k));
    for (int k : order) {
      int least = 0;
      for (int s = 1; s < count; s++) {
        if (predicted[s] < predicted[least]) {
          least = s;
        }
      }
      shardOf[k] = least + 1;
      predicted[least] += cost[k];
    }
    return new ShardPacking(index, count, boxed(shardOf), boxed(predicted), timings, ops.size() - measured);
  }

  /** Whether this run's shard checks the op at {@code opIndex} in plan order. */
  public boolean owns(int opIndex) {
    return shardOf.get(opIndex) == index;
  }

  /** Whether the split is by measured time. */
  public boolean byTime() {
    return timings != null;
  }

  /** This run's shard's predicted time, in microseconds (0 when by index). */
  public long predicted() {
    return predictedMicros.get(index - 1);
  }

  /** The one line that says how the ops were split. */
  public String describe() {
    if (timings == null) {
      return "shard " + index + "/" + count + " by index (op k to shard k mod " + count + " + 1): no --timings given;"
          + " give it a previous run's opcheck-report.json or merge's " + OpTimings.NAME + " to split by time";
    }
    return "shard " + index + "/" + count + " by time from " + timings.source() + ": predicted "
        + seconds(predicted()) + " of " + seconds(predictedMicros.stream().mapToLong(Long::longValue).sum())
        + (unmeasured == 0 ? "" : "; " + unmeasured + (unmeasured == 1 ? " op" : " ops")
            + " not in the timings costed at the mean of the others");
  }

  private static List<Integer> boxed(int[] values) {
    return java.util.Arrays.stream(values).boxed().toList();
  }

  private static List<Long> boxed(long[] values) {
    return java.util.Arrays.stream(values).boxed().toList();
  }

  static String seconds(long micros) {
    return String.format(java.util.Locale.ROOT, "%.2f s", micros / 1e6);
  }
}
