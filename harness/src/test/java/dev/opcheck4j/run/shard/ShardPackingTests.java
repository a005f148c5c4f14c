package dev.opcheck4j.run.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Packing ops into shards by given times (never by a clock): largest first, each to the least loaded shard. */
class ShardPackingTests {
  /** Three heavy ops among thirteen light ones, heavy at positions 0, 4 and 8: by index all three land in shard 1. */
  static final List<String> OPS = new ArrayList<>();
  static final Map<String, Long> MICROS = new LinkedHashMap<>();

  static {
    for (int k = 0; k < 16; k++) {
      String op = "ns::op" + k;
      OPS.add(op);
      MICROS.put(op, k % 4 == 0 && k < 12 ? 30_000_000L : 1_000_000L);
    }
  }

  static final OpTimings TIMINGS = new OpTimings(MICROS, Map.of("libns.so", 500_000L), "t.json");

  private static List<Long> loads(ShardPacking p, Map<String, Long> micros) {
    long[] load = new long[p.count()];
    for (int k = 0; k < OPS.size(); k++) {
      load[p.shardOf().get(k) - 1] += micros.get(OPS.get(k));
    }
    return java.util.Arrays.stream(load).boxed().toList();
  }

  @Test
  void byIndexOpKGoesToShardKModNPlusOneAndTheHeavyOnesPileUp() {
    ShardPacking p = ShardPacking.of(1, 4, null, List.of("libns.so"), OPS);
    assertEquals(List.of(1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4), p.shardOf());
    assertEquals(List.of(91_000_000L, 4_000_000L, 4_000_000L, 4_000_000L), loads(p, MICROS));
    assertTrue(!p.byTime());
    assertTrue(p.describe().startsWith("shard 1/4 by index (op k to shard k mod 4 + 1): no --timings given"), p.describe());
  }

  @Test
  void byTimeEachHeavyOpGetsAShardOfItsOwnAndTheLightOnesFillTheFourth() {
    ShardPacking p = ShardPacking.of(2, 4, TIMINGS, List.of("libns.so"), OPS);
    // largest first: the heavy ops (0, 4, 8) go to the empty shards 2, 3 and 4 (shard 1 holds the library's 0.5 s);
    // then each light op to the least loaded shard, the lowest index on a tie
    assertEquals(List.of(2, 1, 1, 1, 3, 1, 1, 1, 4, 1, 1, 1, 1, 1, 1, 1), p.shardOf());
    assertEquals(List.of(13_500_000L, 30_000_000L, 30_000_000L, 30_000_000L), p.predictedMicros(),
        "shard 1: the library's 0.5 s and the 13 light ops");
    assertEquals(30_000_000L, p.predicted());
    assertTrue(p.owns(0) && !p.owns(1) && !p.owns(4));
    assertEquals("shard 2/4 by time from t.json: predicted 30.00 s of 103.50 s", p.describe());
  }

  @Test
  void theSameOpsAndTimingsGiveTheSameSplitAndTheShardsCoverEveryOpOnce() {
    for (int i = 1; i <= 4; i++) {
      assertEquals(ShardPacking.of(1, 4, TIMINGS, List.of("libns.so"), OPS).shardOf(),
          ShardPacking.of(i, 4, TIMINGS, List.of("libns.so"), OPS).shardOf(), "every shard computes the same split");
    }
    int owned = 0;
    for (int i = 1; i <= 4; i++) {
      ShardPacking p = ShardPacking.of(i, 4, TIMINGS, List.of("libns.so"), OPS);
      for (int k = 0; k < OPS.size(); k++) {
        owned += p.owns(k) ? 1 : 0;
      }
    }
    assertEquals(OPS.size(), owned);
  }

  @Test
  void anOpTheTimingsDoNotKnowIsCostedAtTheMeanOfThoseTheyKnow() {
    OpTimings t = new OpTimings(Map.of("ns::a", 4_000_000L, "ns::b", 2_000_000L), Map.of(), "t.json");
    ShardPacking p = ShardPacking.of(1, 2, t, List.of(), List.of("ns::a", "ns::b", "ns::new"));
    // a 4 s, new 3 s (the mean), b 2 s: a to shard 1, new to shard 2, b to shard 2
    assertEquals(List.of(1, 2, 2), p.shardOf());
    assertEquals(List.of(4_000_000L, 5_000_000L), p.predictedMicros());
    assertEquals(1, p.unmeasured());
    assertTrue(p.describe().endsWith("; 1 op not in the timings costed at the mean of the others"), p.describe());
  }

  @Test
  void timingsAreEachOpsResultsSummedAndRoundTripThroughTheFileMergeWrites(@TempDir Path dir) {
    List<CheckResult> results = List.of(
        new CheckResult("ns::a", "schema.types", "-", "-", Outcome.PASSED, List.of(), 100),
        new CheckResult("ns::a", "fake.shape", "cpu", "-", Outcome.PASSED, List.of(), 250),
        new CheckResult("ns::b", "fake.shape", "cpu", "-", Outcome.FAILED, List.of(), 7));
    OpTimings t = OpTimings.of(results, "run");
    assertEquals(Map.of("ns::a", 350L, "ns::b", 7L), t.ops());
    Path file = t.write(dir);
    assertEquals(OpTimings.NAME, file.getFileName().toString());
    OpTimings back = OpTimings.read(file);
    assertEquals(t.ops(), back.ops());
    assertEquals(file.toString(), back.source());
    assertEquals(t.ops(), OpTimings.read(dir).ops(), "a report dir holding the file reads as the file");
  }

  @Test
  void aFileThatHoldsNoTimingsIsRefusedWithOneLine(@TempDir Path dir) throws Exception {
    Path f = Files.writeString(dir.resolve("x.json"), "{\"something\": 1}");
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> OpTimings.read(f));
    assertEquals("--timings: " + f + " is neither an opcheck-report.json nor an opcheck-timings.json", e.getMessage());
    e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> OpTimings.read(dir.resolve("none")));
    assertEquals("--timings: no such file: " + dir.resolve("none"), e.getMessage());
  }
}
