package dev.opcheck4j.reports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.ExampleRef;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Heatmap;
import dev.opcheck4j.api.Expectation;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ReportReader;
import dev.opcheck4j.api.Repro;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@code opcheck-report.json} back: schema version 2, and version 1 (whose results carry only
 * op, check, device, example, outcome, facts and duration; its {@code "-"} markers become null).
 * Anything else is rejected with a message naming the file and the version found.
 */
public final class JsonReportReader implements ReportReader {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public RunReport read(Path file) throws IOException, UnsupportedReportException {
    JsonNode root;
    try {
      root = JSON.readTree(Files.readAllBytes(file));
    } catch (JsonProcessingException e) {
      throw new UnsupportedReportException(file + ": not JSON (" + e.getOriginalMessage() + ")");
    }
    if (root == null || !root.isObject() || !root.has("schemaVersion")) {
      throw new UnsupportedReportException(file + ": not an opcheck4j report (no schemaVersion)");
    }
    int version = root.get("schemaVersion").asInt(-1);
    try {
      return switch (version) {
        case 1 -> readV1(root);
        case JsonReportFormat.SCHEMA_VERSION -> readV2(root);
        default -> throw new UnsupportedReportException(file + ": report schema version "
            + root.get("schemaVersion") + " is not supported; this opcheck4j reads versions 1 and "
            + JsonReportFormat.SCHEMA_VERSION + " (write it again with this version, or use the opcheck4j that wrote it)");
      };
    } catch (NullPointerException | IllegalArgumentException | DateTimeParseException e) {
      throw new UnsupportedReportException(file + ": malformed version " + version + " report (" + e.getMessage() + ")");
    }
  }

  private static RunReport readV1(JsonNode root) {
    List<CheckResult> results = new ArrayList<>();
    for (JsonNode r : root.path("results")) {
      results.add(new CheckResult(r.get("op").asText(), r.get("check").asText(), r.get("device").asText(),
          r.get("example").asText(), outcome(r.get("outcome").asText()), facts(r.path("facts")),
          r.path("durationMs").asLong() * 1000));
    }
    return new RunReport(text(root, "torch"), text(root, "presets"), Instant.parse(root.get("startedAt").asText()),
        root.path("durationMs").asLong(), results);
  }

  private static RunReport readV2(JsonNode root) {
    JsonNode run = root.get("run");
    List<RunInfo.DeviceInfo> devices = new ArrayList<>();
    for (JsonNode d : run.path("devices")) {
      devices.add(new RunInfo.DeviceInfo(d.get("name").asText(), d.get("runs").asBoolean(), text(d, "skipReason")));
    }
    List<String> checksRun = new ArrayList<>();
    run.path("checksRun").forEach(c -> checksRun.add(c.asText()));
    List<RunInfo.Input> inputs = new ArrayList<>();
    for (JsonNode in : run.path("inputs")) {
      inputs.add(new RunInfo.Input(text(in, "spec"), in.get("library").asText(), text(in, "sha256")));
    }
    Map<String, String> configuration = null;
    JsonNode conf = run.get("junitConfiguration");
    if (conf != null && conf.isObject()) {
      configuration = new LinkedHashMap<>();
      for (var e : conf.properties()) {
        configuration.put(e.getKey(), e.getValue().asText());
      }
    }
    RunInfo info = new RunInfo(text(run.path("tool"), "version"), text(run, "libtorch"), text(run, "presets"),
        number(run, "seed"), run.path("tries").isNull() ? null : run.path("tries").asInt(),
        run.path("jobs").asInt(1), devices, checksRun, inputs, Instant.parse(run.get("startedAt").asText()),
        run.path("durationMs").asLong(), text(run, "commandLine"), configuration, completion(run.path("completion")),
        texts(run.path("cached")));
    List<CheckInfo> checks = new ArrayList<>();
    for (JsonNode c : root.path("checks")) {
      // the report carries what readers need (id, summary, severity, scope); prerequisites stay with the tool
      String id = c.get("id").asText();
      String summary = c.get("summary").asText();
      CheckInfo.Scope scope = CheckInfo.Scope.valueOf(c.get("scope").asText().toUpperCase(java.util.Locale.ROOT));
      checks.add(switch (c.get("severity").asText()) {
        case "warning" -> CheckInfo.warning(id, scope, summary);
        case "note" -> CheckInfo.note(id, scope, summary);
        default -> CheckInfo.error(id, scope, summary);
      });
    }
    List<CheckResult> results = new ArrayList<>();
    for (JsonNode r : root.path("results")) {
      String library = text(r, "library");
      String op = text(r, "op");
      String device = text(r, "device");
      JsonNode ex = r.get("example");
      ExampleRef example = ex == null || ex.isNull() ? null
          : new ExampleRef(text(ex, "ref"), ex.path("generated").asBoolean(),
              ex.path("try").isNull() ? null : ex.path("try").asInt(), number(ex, "seed"), text(ex, "description"),
              ex.hasNonNull("tries") ? Integer.valueOf(ex.get("tries").asInt()) : null, text(ex, "stop"));
      String exampleText = example == null ? CheckResult.NONE
          : example.ref() == null ? "generated" : (example.generated() ? "generated from " : "") + example.ref();
      results.add(new CheckResult(op != null ? op : library, r.get("check").asText(),
          device == null ? CheckResult.NONE : device, exampleText, outcome(r.get("outcome").asText()),
          facts(r.path("facts")), r.path("durationMicros").asLong(), example, op == null ? library : null,
          finding(r.get("finding")), repro(r.get("repro")), expectation(r.get("expectation")), text(r, "runtime")));
    }
    JsonNode covered = root.get("coverage");
    if (covered == null || !covered.isArray()) {
      return new RunReport(info, checks, results);
    }
    List<Coverage.Entry> entries = new ArrayList<>();
    for (JsonNode e : covered) {
      entries.add(new Coverage.Entry(e.get("op").asText(), e.get("family").asText(), text(e, "device"),
          e.path("examples").asInt(), e.path("generated").isNull() ? null : e.path("generated").asInt(),
          e.path("ran").asBoolean() ? null : text(e, "reason"), e.path("bySpec").asBoolean(), e.path("lost").asInt(),
          text(e, "runtime"), text(e, "stop")));
    }
    return new RunReport(info, checks, results, new Coverage(entries));
  }

  /** A result's finding; null when it has none, or the report was written before findings were (early version 2). */
  private static Finding finding(JsonNode f) {
    if (f == null || f.isNull()) {
      return null;
    }
    JsonNode c = f.get("cause");
    String kind = c.get("kind").asText();
    Cause cause = switch (kind) {
      case "value-mismatch" -> new Cause.ValueMismatch(c.get("where").asText());
      case "metadata-mismatch" -> new Cause.MetadataMismatch(c.get("where").asText(), c.get("property").asText());
      case "rejection" -> new Cause.Rejection(c.get("firstLine").asText());
      case "crash" -> new Cause.Crash(c.get("signal").asText());
      case "timeout" -> new Cause.Timeout(c.get("seconds").asLong());
      case "contract" -> new Cause.Contract(c.get("rule").asText(), c.get("subject").asText());
      default -> throw new IllegalArgumentException("unknown cause kind '" + kind + "'");
    };
    List<Heatmap> maps = new ArrayList<>();
    for (JsonNode h : f.path("heatmaps")) {
      List<Double> cells = new ArrayList<>();
      h.get("cells").forEach(x -> cells.add(x.asDouble()));
      maps.add(new Heatmap(h.get("title").asText(), h.get("group").asText(), h.get("rows").asInt(), h.get("cols").asInt(),
          cells, ints(h.get("marked")), ints(h.get("nonFinite")), h.get("note").asText()));
    }
    return Finding.of(f.get("expected").asText(), f.get("actual").asText(), text(f, "hint"), cause).withHeatmaps(maps);
  }

  private static List<Integer> ints(JsonNode array) {
    List<Integer> out = new ArrayList<>();
    array.forEach(x -> out.add(x.asInt()));
    return out;
  }

  /** A result's repro, or null. */
  private static Repro repro(JsonNode r) {
    if (r == null || r.isNull()) {
      return null;
    }
    return new Repro(r.get("source").asText(), r.get("op").asText(), text(r, "check"), text(r, "device"),
        r.get("seed").asLong(), r.get("tries").asInt(), text(r, "exampleRef"), text(r, "exampleDescription"),
        r.path("oneWorker").asBoolean(), text(r, "script"), text(r, "runtime"));
  }

  private static Expectation expectation(JsonNode e) {
    return e == null || e.isNull() ? null : new Expectation(text(e, "scope"), text(e, "op"), text(e, "key"),
        text(e, "reason"), text(e, "file"), text(e, "location"));
  }

  private static Outcome outcome(String label) {
    Outcome o = Outcome.ofLabel(label);
    if (o == null) {
      throw new IllegalArgumentException("unknown outcome '" + label + "'");
    }
    return o;
  }

  private static List<Fact> facts(JsonNode facts) {
    List<Fact> list = new ArrayList<>();
    for (JsonNode f : facts) {
      list.add(new Fact(f.get("key").asText(), f.get("value").asText()));
    }
    return list;
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static Long number(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asLong();
  }

  /** The strings of an array, or none when it is absent. */
  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  /** The run's completion; a report written before it was recorded is complete. */
  private static RunInfo.Completion completion(JsonNode c) {
    if (!c.isObject()) {
      return RunInfo.Completion.COMPLETE;
    }
    List<RunInfo.Incomplete> incomplete = new ArrayList<>();
    for (JsonNode i : c.path("incomplete")) {
      List<String> ops = new ArrayList<>();
      i.path("missingOps").forEach(o -> ops.add(o.asText()));
      incomplete.add(new RunInfo.Incomplete(i.get("shard").asText(), ops));
    }
    return new RunInfo.Completion(text(c, "interrupted"), incomplete);
  }
}
