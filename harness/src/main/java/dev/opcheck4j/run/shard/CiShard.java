package dev.opcheck4j.run.shard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.function.UnaryOperator;
import java.util.Optional;

/**
 * The shard a CI engine's parallel job is, from the engine's own variables, so that no wrapper has to
 * turn them into {@code --shard I/N}. Read in this order, the first engine whose variables are set wins:
 * <ul>
 *   <li>{@code OPCHECK4J_SHARD}: {@code I/N}, as {@code --shard} takes it (a GitHub matrix sets it);
 *   <li>Buildkite's {@code BUILDKITE_PARALLEL_JOB} (0-based) and {@code BUILDKITE_PARALLEL_JOB_COUNT};
 *   <li>Bazel's test sharding, {@code TEST_SHARD_INDEX} (0-based) and {@code TEST_TOTAL_SHARDS}; the
 *       runner then touches {@code TEST_SHARD_STATUS_FILE}, which tells Bazel it shards;
 *   <li>Kubernetes Indexed Jobs' {@code JOB_COMPLETION_INDEX} (0-based), with the count in
 *       {@code OPCHECK4J_SHARD_COUNT} (the Job's {@code completions}; Kubernetes does not pass it on);
 *   <li>GitLab's {@code CI_NODE_INDEX} (1-based) and {@code CI_NODE_TOTAL} ({@code parallel: N}).
 * </ul>
 * An explicit {@code --shard} (or engine key {@code opcheck4j.shard}) is taken before any of them.
 *
 * @param index 1-based
 * @param count at least 1
 * @param source the variables it came from, for the line that says which shard runs
 * @param statusFile Bazel's {@code TEST_SHARD_STATUS_FILE}, or null
 */
public record CiShard(int index, int count, String source, Path statusFile) {
  public static final String SHARD = "OPCHECK4J_SHARD";
  public static final String SHARD_COUNT = "OPCHECK4J_SHARD_COUNT";

  /**
   * The shard the variables in {@code env} name, if any.
   *
   * @throws IllegalArgumentException with one line naming the variables when they are set but not a shard
   */
  public static Optional<CiShard> of(UnaryOperator<String> env) {
    String explicit = value(env, SHARD);
    if (explicit != null) {
      int slash = explicit.indexOf('/');
      if (slash <= 0) {
        throw new IllegalArgumentException(SHARD + " takes I/N (e.g. 1/2), got '" + explicit + "'");
      }
      return Optional.of(shard(number(SHARD, explicit.substring(0, slash)), number(SHARD, explicit.substring(slash + 1)),
          SHARD, null));
    }
    if (value(env, "BUILDKITE_PARALLEL_JOB") != null) {
      return Optional.of(shard(number("BUILDKITE_PARALLEL_JOB", value(env, "BUILDKITE_PARALLEL_JOB")) + 1,
          required(env, "BUILDKITE_PARALLEL_JOB_COUNT", "BUILDKITE_PARALLEL_JOB"),
          "BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT", null));
    }
    if (value(env, "TEST_TOTAL_SHARDS") != null) {
      String status = value(env, "TEST_SHARD_STATUS_FILE");
      return Optional.of(shard(required(env, "TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS") + 1,
          number("TEST_TOTAL_SHARDS", value(env, "TEST_TOTAL_SHARDS")), "TEST_SHARD_INDEX/TEST_TOTAL_SHARDS",
          status == null ? null : Path.of(status)));
    }
    if (value(env, "JOB_COMPLETION_INDEX") != null) {
      return Optional.of(shard(number("JOB_COMPLETION_INDEX", value(env, "JOB_COMPLETION_INDEX")) + 1,
          required(env, SHARD_COUNT, "JOB_COMPLETION_INDEX (a Kubernetes Indexed Job; set it to the Job's completions)"),
          "JOB_COMPLETION_INDEX/" + SHARD_COUNT, null));
    }
    if (value(env, "CI_NODE_INDEX") != null) {
      return Optional.of(shard(number("CI_NODE_INDEX", value(env, "CI_NODE_INDEX")),
          required(env, "CI_NODE_TOTAL", "CI_NODE_INDEX"), "CI_NODE_INDEX/CI_NODE_TOTAL", null));
    }
    return Optional.empty();
  }

  /**
   * Tells Bazel that this runner shards, as its test sharding protocol asks: touches the status file
   * (creating it, or updating its time).
   */
  public void acknowledge() {
    if (statusFile == null) {
      return;
    }
    try {
      if (Files.exists(statusFile)) {
        Files.setLastModifiedTime(statusFile, FileTime.from(Instant.now()));
      } else {
        Files.createFile(statusFile);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("TEST_SHARD_STATUS_FILE " + statusFile + ": " + e.getMessage(), e);
    }
  }

  /** {@code I/N}, as {@code --shard} takes it. */
  public String spec() {
    return index + "/" + count;
  }

  private static CiShard shard(int index, int count, String source, Path status) {
    if (count < 1 || index < 1 || index > count) {
      throw new IllegalArgumentException(source + " name shard " + index + " of " + count
          + " (the index counted from 1), which is not one");
    }
    return new CiShard(index, count, source, status);
  }

  private static int required(UnaryOperator<String> env, String name, String because) {
    String v = value(env, name);
    if (v == null) {
      throw new IllegalArgumentException(because + " is set but " + name + " is not: the shard count is needed");
    }
    return number(name, v);
  }

  private static int number(String name, String text) {
    try {
      return Integer.parseInt(text.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " takes a whole number, got '" + text + "'");
    }
  }

  private static String value(UnaryOperator<String> env, String name) {
    String v = env.apply(name);
    return v == null || v.isBlank() ? null : v;
  }
}
