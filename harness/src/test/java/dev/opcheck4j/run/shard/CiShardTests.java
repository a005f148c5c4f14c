package dev.opcheck4j.run.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each CI engine's variables name the right shard; the environment is a map the test gives, never the process's. */
class CiShardTests {
  private static Optional<CiShard> of(Map<String, String> env) {
    return CiShard.of(env::get);
  }

  @Test
  void buildkitesZeroBasedJobIsShardJobPlusOne() {
    CiShard s = of(Map.of("BUILDKITE_PARALLEL_JOB", "2", "BUILDKITE_PARALLEL_JOB_COUNT", "4")).orElseThrow();
    assertEquals("3/4", s.spec());
    assertEquals("BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT", s.source());
    assertEquals("1/4", of(Map.of("BUILDKITE_PARALLEL_JOB", "0", "BUILDKITE_PARALLEL_JOB_COUNT", "4")).orElseThrow().spec());
  }

  @Test
  void bazelsShardIndexAndTotalNameTheShardAndItsStatusFileIsTouched(@TempDir Path dir) throws Exception {
    Path status = dir.resolve("shard-status");
    CiShard s = of(Map.of("TEST_TOTAL_SHARDS", "4", "TEST_SHARD_INDEX", "3", "TEST_SHARD_STATUS_FILE", status.toString()))
        .orElseThrow();
    assertEquals("4/4", s.spec());
    assertEquals(status, s.statusFile());
    assertTrue(!Files.exists(status));
    s.acknowledge();
    assertTrue(Files.isRegularFile(status), "Bazel reads the file's existence as: this runner shards");
    assertEquals("1/2", of(Map.of("TEST_TOTAL_SHARDS", "2", "TEST_SHARD_INDEX", "0")).orElseThrow().spec());
  }

  @Test
  void aKubernetesIndexedJobsCompletionIndexTakesTheCountFromOpcheck4jShardCount() {
    assertEquals("2/3", of(Map.of("JOB_COMPLETION_INDEX", "1", "OPCHECK4J_SHARD_COUNT", "3")).orElseThrow().spec());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> of(Map.of("JOB_COMPLETION_INDEX", "1")));
    assertEquals("JOB_COMPLETION_INDEX (a Kubernetes Indexed Job; set it to the Job's completions) is set but"
        + " OPCHECK4J_SHARD_COUNT is not: the shard count is needed", e.getMessage());
  }

  @Test
  void gitLabsNodeIndexIsAlreadyOneBasedAndOpcheck4jShardIsTakenAsGiven() {
    assertEquals("2/5", of(Map.of("CI_NODE_INDEX", "2", "CI_NODE_TOTAL", "5")).orElseThrow().spec());
    assertEquals("3/8", of(Map.of("OPCHECK4J_SHARD", "3/8", "BUILDKITE_PARALLEL_JOB", "0",
        "BUILDKITE_PARALLEL_JOB_COUNT", "2")).orElseThrow().spec(), "OPCHECK4J_SHARD comes before the engines'");
  }

  @Test
  void noVariablesNoShardAndAnIndexOutsideTheCountIsRefused() {
    assertEquals(Optional.empty(), of(Map.of("CI", "true", "CI_NODE_TOTAL", "1")));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> of(Map.of("BUILDKITE_PARALLEL_JOB", "4", "BUILDKITE_PARALLEL_JOB_COUNT", "4")));
    assertEquals("BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT name shard 5 of 4 (the index counted from 1),"
        + " which is not one", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> of(Map.of("TEST_TOTAL_SHARDS", "x", "TEST_SHARD_INDEX", "0")));
    assertEquals("TEST_TOTAL_SHARDS takes a whole number, got 'x'", e.getMessage());
  }
}
