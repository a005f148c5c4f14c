package dev.opcheck4j.run.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.run.shard.OpTimings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How every front end settles its shard: the one given, else the CI engine's, else all; by timings, else by index. */
class ShardChoiceTests {
  private static final Map<String, String> BUILDKITE = Map.of("BUILDKITE_PARALLEL_JOB", "1", "BUILDKITE_PARALLEL_JOB_COUNT", "4");

  @Test
  void theShardGivenComesBeforeTheCiEnginesVariables() {
    ShardChoice c = ShardChoice.of(Optional.of(new Shard(3, 5)), Optional.empty(), BUILDKITE::get);
    assertEquals("3/5", c.shard().toString());
    assertNull(c.ci());
  }

  @Test
  void withoutAShardGivenTheCiEnginesVariablesNameItAndTheNotesSayFromWhereAndThatItIsByIndex() {
    ShardChoice c = ShardChoice.of(Optional.empty(), Optional.empty(), BUILDKITE::get);
    assertEquals("2/4", c.shard().toString());
    assertNull(c.shard().timings());
    assertEquals(List.of("shard 2/4 from BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT",
        "shard 2/4 by index (op k to shard k mod 4 + 1): no --timings given; give it a previous run's"
        + " opcheck-report.json or merge's opcheck-timings.json to split by time"), c.notes());
  }

  @Test
  void timingsGivenPackTheShardByThem(@TempDir Path dir) {
    Path file = new OpTimings(Map.of("ns::a", 5L), Map.of(), "x").write(dir);
    ShardChoice c = ShardChoice.of(Optional.of(new Shard(1, 2)), Optional.of(file), Map.<String, String>of()::get);
    assertEquals(Map.of("ns::a", 5L), c.shard().timings().ops());
    assertEquals(List.of(), c.notes());
  }

  @Test
  void noShardAnywhereIsARunOfAllOpsAndTimingsThenSayTheyDoNothing(@TempDir Path dir) throws Exception {
    Path file = new OpTimings(Map.of("ns::a", 5L), Map.of(), "x").write(dir);
    ShardChoice c = ShardChoice.of(Optional.empty(), Optional.of(file), Map.<String, String>of()::get);
    assertEquals(Shard.ALL, c.shard());
    assertEquals(List.of("--timings has no effect on a run of all ops (no --shard, and no CI variable names one)"),
        c.notes());
    assertTrue(Files.isRegularFile(file));
  }
}
