package dev.opcheck4j.run.shard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.opcheck4j.api.CheckResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A shard's predicted and actual time, so a user can see whether the split and the number of shards
 * are right: written by a sharded run as {@code opcheck-shard.json} in its report dir, read back by
 * {@code merge}. Predicted and actual are in the same measure, the checks' own time (the sum of the
 * results' {@code durationMicros}); wall is the run's wall time, workers' start-up and parallelism
 * included.
 *
 * @param index the shard (1-based)
 * @param count the number of shards
 * @param byTime whether the ops were split by measured time (else by index, and nothing was predicted)
 * @param predictedMicros the time the timings predicted for this shard (0 when by index)
 * @param actualMicros the checks' own time this shard took
 * @param wallMs the shard run's wall time
 * @param split how the ops were split ({@link ShardPacking#describe})
 */
public record ShardTimes(int index, int count, boolean byTime, long predictedMicros, long actualMicros, long wallMs,
    String split) {
  public static final String NAME = "opcheck-shard.json";
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** A finished shard's times: its packing's prediction, and the sum of its results' own time. */
  public static ShardTimes of(ShardPacking packing, List<CheckResult> results, long wallMs) {
    return new ShardTimes(packing.index(), packing.count(), packing.byTime(), packing.predicted(),
        results.stream().mapToLong(CheckResult::durationMicros).sum(), wallMs, packing.describe());
  }

  /** One line: {@code shard 2/4: predicted 3.10 s, actual 2.95 s of checks' time (wall 4.02 s)}. */
  public String line() {
    return "shard " + index + "/" + count + ": " + (byTime ? "predicted " + ShardPacking.seconds(predictedMicros)
        : "split by index, nothing predicted") + ", actual " + ShardPacking.seconds(actualMicros)
        + " of checks' time (wall " + String.format(Locale.ROOT, "%.2f s", wallMs / 1e3) + ")";
  }

  public void write(Path dir) {
    ObjectNode n = JSON.valueToTree(this);
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve(NAME), JSON.writeValueAsString(n) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The times in {@code dir}, if a sharded run wrote them there. */
  public static Optional<ShardTimes> read(Path dir) {
    Path f = dir.resolve(NAME);
    if (!Files.isRegularFile(f)) {
      return Optional.empty();
    }
    try {
      JsonNode n = JSON.readTree(Files.readAllBytes(f));
      return Optional.of(new ShardTimes(n.path("index").asInt(), n.path("count").asInt(), n.path("byTime").asBoolean(),
          n.path("predictedMicros").asLong(), n.path("actualMicros").asLong(), n.path("wallMs").asLong(),
          n.path("split").asText()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The lines {@code merge} prints for its shards: each shard's line, in shard order, then the spread
   * between the slowest and the fastest (by actual time).
   */
  public static List<String> table(List<ShardTimes> shards) {
    List<ShardTimes> sorted = shards.stream().sorted(java.util.Comparator.comparingInt(ShardTimes::index)).toList();
    List<String> out = new ArrayList<>();
    sorted.forEach(s -> out.add(s.line()));
    if (sorted.size() > 1) {
      long max = sorted.stream().mapToLong(ShardTimes::actualMicros).max().orElse(0);
      long min = sorted.stream().mapToLong(ShardTimes::actualMicros).min().orElse(0);
      long wallMax = sorted.stream().mapToLong(ShardTimes::wallMs).max().orElse(0);
      long wallMin = sorted.stream().mapToLong(ShardTimes::wallMs).min().orElse(0);
      out.add("shards: slowest - fastest " + ShardPacking.seconds(max - min) + " of checks' time, "
          + String.format(Locale.ROOT, "%.2f s", (wallMax - wallMin) / 1e3) + " wall");
    }
    return out;
  }
}
