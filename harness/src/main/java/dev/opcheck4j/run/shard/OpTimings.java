package dev.opcheck4j.run.shard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ReportReader;
import dev.opcheck4j.api.RunReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * What each op of a past run cost: the sum of its results' own time ({@link CheckResult#durationMicros}),
 * and the same for each library's library-wide checks. Read from a run's {@code opcheck-report.json}
 * or from the {@code opcheck-timings.json} that {@code merge} writes.
 *
 * @param ops microseconds per op name ({@code ns::name})
 * @param libraries microseconds of the library-wide checks per library file name
 * @param source where the timings were read from, for the line that says how the ops were split
 */
public record OpTimings(Map<String, Long> ops, Map<String, Long> libraries, String source) {
  /** The file {@code merge} writes beside the merged report. */
  public static final String NAME = "opcheck-timings.json";
  static final String FORMAT_KEY = "opcheck4jTimings";
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  public OpTimings {
    ops = Map.copyOf(ops);
    libraries = Map.copyOf(libraries);
  }

  /** The timings of {@code results}: an op's results summed under its name, a library's under its file name. */
  public static OpTimings of(List<CheckResult> results, String source) {
    Map<String, Long> ops = new TreeMap<>();
    Map<String, Long> libraries = new TreeMap<>();
    for (CheckResult r : results) {
      if (r.library() == null) {
        ops.merge(r.op(), r.durationMicros(), Long::sum);
      } else {
        libraries.merge(Path.of(r.library()).getFileName().toString(), r.durationMicros(), Long::sum);
      }
    }
    return new OpTimings(ops, libraries, source);
  }

  /**
   * The timings in {@code file}: a timings file, a run's {@code opcheck-report.json}, or a report dir
   * holding either (the timings file first).
   *
   * @throws IllegalArgumentException with the one line the user sees, naming the file and what is wrong
   */
  public static OpTimings read(Path file) {
    Path f = file;
    if (Files.isDirectory(file)) {
      f = Files.isRegularFile(file.resolve(NAME)) ? file.resolve(NAME) : file.resolve("opcheck-report.json");
    }
    if (!Files.isRegularFile(f)) {
      throw new IllegalArgumentException("--timings: no such file: " + f);
    }
    JsonNode root;
    try {
      root = JSON.readTree(Files.readAllBytes(f));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("--timings: " + f + " is not JSON (" + e.getOriginalMessage() + ")");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (root != null && root.has(FORMAT_KEY)) {
      return new OpTimings(micros(root.path("ops")), micros(root.path("libraries")), f.toString());
    }
    if (root != null && root.has("schemaVersion")) {
      ReportReader reader = ServiceLoader.load(ReportReader.class).findFirst()
          .orElseThrow(() -> new IllegalStateException("no report reader on the classpath (opcheck4j-reports missing)"));
      try {
        RunReport report = reader.read(f);
        return of(report.results(), f.toString());
      } catch (ReportReader.UnsupportedReportException e) {
        throw new IllegalArgumentException("--timings: " + e.getMessage());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw new IllegalArgumentException("--timings: " + f + " is neither an opcheck-report.json nor an " + NAME);
  }

  private static Map<String, Long> micros(JsonNode node) {
    Map<String, Long> out = new TreeMap<>();
    node.fields().forEachRemaining(e -> {
      if (!e.getValue().canConvertToLong() || e.getValue().asLong() < 0) {
        throw new IllegalArgumentException("--timings: " + e.getKey() + " has no time in microseconds: " + e.getValue());
      }
      out.put(e.getKey(), e.getValue().asLong());
    });
    return out;
  }

  /** Writes the timings as {@link #NAME} in {@code dir}, keys sorted: the same results give the same bytes. */
  public Path write(Path dir) {
    ObjectNode root = JSON.createObjectNode();
    root.put(FORMAT_KEY, 1);
    root.put("unit", "microseconds of the checks' own time per op (the sum of its results' durationMicros)");
    ObjectNode o = root.putObject("ops");
    new TreeMap<>(ops).forEach(o::put);
    ObjectNode l = root.putObject("libraries");
    new TreeMap<>(libraries).forEach(l::put);
    try {
      Files.createDirectories(dir);
      Path f = dir.resolve(NAME);
      Files.writeString(f, JSON.writeValueAsString(root) + "\n");
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
