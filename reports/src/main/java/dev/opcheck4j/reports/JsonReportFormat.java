package dev.opcheck4j.reports;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.ExampleRef;
import dev.opcheck4j.api.Expectation;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Heatmap;
import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.Repro;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code opcheck-report.json}, schema version 2: {@code {schemaVersion, run, checks, results, coverage, summary}},
 * every field documented in {@code docs/report.md} and constrained by {@link #SCHEMA_RESOURCE}.
 * Absent values are {@code null}, never a placeholder.
 */
public final class JsonReportFormat extends SingleFileFormat {
  public static final String FILE = "opcheck-report.json";
  public static final int SCHEMA_VERSION = 2;
  /** The JSON Schema of this format, on the class path of opcheck4j-reports. */
  public static final String SCHEMA_RESOURCE = "/dev/opcheck4j/reports/opcheck-report.schema.json";

  public JsonReportFormat() {
    super(FILE);
  }

  @Override
  public String name() {
    return "json";
  }

  @Override
  public Path write(RunReport report, Path dir) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(FILE);
    try (OutputStream out = Files.newOutputStream(file)) {
      write(report, out);
    }
    return file;
  }

  /** Writes the report as pretty-printed UTF-8 JSON. */
  public void write(RunReport report, OutputStream out) throws IOException {
    write(report, out, true);
  }

  /**
   * Writes the report as UTF-8 JSON, pretty-printed or compact (the HTML page embeds it compact: a
   * third less to parse at hundreds of ops).
   */
  void write(RunReport report, OutputStream out, boolean pretty) throws IOException {
    try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
      if (pretty) {
        g.useDefaultPrettyPrinter();
      }
      g.writeStartObject();
      g.writeNumberField("schemaVersion", SCHEMA_VERSION);
      writeRun(g, report.run());
      g.writeArrayFieldStart("checks");
      for (CheckInfo c : report.checks()) {
        g.writeStartObject();
        g.writeStringField("id", c.id());
        g.writeStringField("family", c.family());
        g.writeStringField("summary", c.summary());
        g.writeStringField("severity", c.severity().label());
        g.writeStringField("scope", c.scope().name().toLowerCase(java.util.Locale.ROOT));
        g.writeStringField("doc", c.doc());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeArrayFieldStart("results");
      for (CheckResult r : report.results()) {
        writeResult(g, r);
      }
      g.writeEndArray();
      writeCoverage(g, report.coverage());
      if (!report.kernelLines().isEmpty()) {
        writeKernelLines(g, report.kernelLines());
      }
      g.writeObjectFieldStart("summary");
      for (Outcomes.Kind k : Outcomes.Kind.values()) {
        if (k.outcome() != null) {
          g.writeNumberField(k.label(), report.count(k.outcome()));
        }
      }
      g.writeNumberField("total", report.results().size());
      g.writeEndObject();
      g.writeEndObject();
      g.writeRaw('\n');
    }
  }

  private static void writeRun(JsonGenerator g, RunInfo run) throws IOException {
    g.writeObjectFieldStart("run");
    g.writeObjectFieldStart("tool");
    g.writeStringField("name", "opcheck4j");
    g.writeStringField("version", run.toolVersion());
    g.writeEndObject();
    g.writeStringField("libtorch", run.torchVersion());
    g.writeStringField("presets", run.presetsVersion());
    nullableNumber(g, "seed", run.seed());
    nullableNumber(g, "tries", run.tries() == null ? null : run.tries().longValue());
    g.writeNumberField("jobs", run.jobs());
    g.writeArrayFieldStart("devices");
    for (RunInfo.DeviceInfo d : run.devices()) {
      g.writeStartObject();
      g.writeStringField("name", d.name());
      g.writeBooleanField("runs", d.runs());
      g.writeStringField("skipReason", d.skipReason());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeArrayFieldStart("checksRun");
    for (String id : run.checksRun()) {
      g.writeString(id);
    }
    g.writeEndArray();
    g.writeArrayFieldStart("inputs");
    for (RunInfo.Input in : run.inputs()) {
      g.writeStartObject();
      g.writeStringField("spec", in.spec());
      g.writeStringField("library", in.library());
      g.writeStringField("sha256", in.sha256());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeStringField("startedAt", run.startedAt().toString());
    g.writeNumberField("durationMs", run.durationMs());
    g.writeStringField("commandLine", run.commandLine());
    if (run.configuration() == null) {
      g.writeNullField("junitConfiguration");
    } else {
      g.writeObjectFieldStart("junitConfiguration");
      for (Map.Entry<String, String> e : new TreeMap<>(run.configuration()).entrySet()) {
        g.writeStringField(e.getKey(), e.getValue());
      }
      g.writeEndObject();
    }
    writeCompletion(g, run.completion());
    if (!run.cached().isEmpty()) {
      // only a run that replayed results says so: a run without a cache writes the report it always did
      g.writeArrayFieldStart("cached");
      for (String op : run.cached()) {
        g.writeString(op);
      }
      g.writeEndArray();
    }
    g.writeEndObject();
  }

  private static void writeCompletion(JsonGenerator g, RunInfo.Completion c) throws IOException {
    g.writeObjectFieldStart("completion");
    g.writeBooleanField("complete", c.complete());
    g.writeStringField("interrupted", c.interrupted());
    g.writeArrayFieldStart("incomplete");
    for (RunInfo.Incomplete i : c.incomplete()) {
      g.writeStartObject();
      g.writeStringField("shard", i.shard());
      g.writeArrayFieldStart("missingOps");
      for (String op : i.missingOps()) {
        g.writeString(op);
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeStringField("mark", c.mark());
    g.writeEndObject();
  }

  /** Per op of a library built with coverage: the lines and branches its kernel ran (only in such a run). */
  private static void writeKernelLines(JsonGenerator g, java.util.List<dev.opcheck4j.api.KernelLines> all)
      throws IOException {
    g.writeArrayFieldStart("kernelLines");
    for (dev.opcheck4j.api.KernelLines k : all) {
      g.writeStartObject();
      g.writeStringField("op", k.op());
      g.writeStringField("library", k.library());
      writeTally(g, "examples", k.examples());
      writeTally(g, "generated", k.generated());
      if (k.note() != null) {
        g.writeStringField("note", k.note());
      }
      g.writeArrayFieldStart("functions");
      for (dev.opcheck4j.api.KernelLines.Function f : k.functions()) {
        g.writeStartObject();
        g.writeStringField("name", f.name());
        g.writeStringField("file", f.file());
        g.writeArrayFieldStart("lines");
        for (dev.opcheck4j.api.KernelLines.Line l : f.lines()) {
          g.writeStartObject();
          g.writeNumberField("line", l.number());
          g.writeStringField("text", l.text());
          g.writeStringField("run", l.run().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
          g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  private static void writeTally(JsonGenerator g, String name, dev.opcheck4j.api.KernelLines.Tally t) throws IOException {
    g.writeObjectFieldStart(name);
    g.writeNumberField("lines", t.lines());
    g.writeNumberField("linesRun", t.linesRun());
    g.writeNumberField("linePercent", t.linePercent());
    g.writeNumberField("branches", t.branches());
    g.writeNumberField("branchesTaken", t.branchesTaken());
    g.writeNumberField("branchPercent", t.branchPercent());
    g.writeEndObject();
  }

  private static void writeCoverage(JsonGenerator g, Coverage coverage) throws IOException {
    g.writeArrayFieldStart("coverage");
    for (Coverage.Entry e : coverage.entries()) {
      g.writeStartObject();
      g.writeStringField("op", e.op());
      g.writeStringField("family", e.family());
      g.writeStringField("device", e.device());
      g.writeBooleanField("ran", e.ran());
      g.writeNumberField("examples", e.examples());
      nullableNumber(g, "generated", e.generated() == null ? null : e.generated().longValue());
      g.writeStringField("reason", e.reason());
      g.writeBooleanField("bySpec", e.bySpec());
      if (e.lost() > 0) {
        g.writeNumberField("lost", e.lost());
      }
      if (e.runtime() != null) {
        g.writeStringField("runtime", e.runtime());
      }
      if (e.stop() != null) {
        g.writeStringField("stop", e.stop());
      }
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  private static void writeResult(JsonGenerator g, CheckResult r) throws IOException {
    g.writeStartObject();
    g.writeStringField("op", r.opOrNull());
    g.writeStringField("library", r.library());
    g.writeStringField("check", r.check());
    g.writeStringField("device", r.deviceOrNull());
    ExampleRef ex = r.exampleInfo();
    if (ex == null) {
      g.writeNullField("example");
    } else {
      g.writeObjectFieldStart("example");
      g.writeStringField("ref", ex.ref());
      g.writeBooleanField("generated", ex.generated());
      nullableNumber(g, "try", ex.tryIndex() == null ? null : ex.tryIndex().longValue());
      nullableNumber(g, "seed", ex.seed());
      g.writeStringField("description", ex.description());
      if (ex.tries() != null) {
        g.writeNumberField("tries", ex.tries());
      }
      if (ex.stop() != null) {
        g.writeStringField("stop", ex.stop());
      }
      g.writeEndObject();
    }
    g.writeStringField("outcome", r.outcome().label());
    g.writeArrayFieldStart("facts");
    for (Fact f : r.facts()) {
      g.writeStartObject();
      g.writeStringField("key", f.key());
      g.writeStringField("value", f.value());
      g.writeEndObject();
    }
    g.writeEndArray();
    writeFinding(g, r.finding());
    writeRepro(g, r.repro());
    if (r.expectation() != null) {
      Expectation e = r.expectation();
      g.writeObjectFieldStart("expectation");
      g.writeStringField("scope", e.scope());
      g.writeStringField("op", e.op());
      g.writeStringField("key", e.key());
      g.writeStringField("reason", e.reason());
      g.writeStringField("file", e.file());
      g.writeStringField("location", e.location());
      g.writeEndObject();
    }
    if (r.runtime() != null) {
      g.writeStringField("runtime", r.runtime());
    }
    g.writeNumberField("durationMicros", r.durationMicros());
    g.writeEndObject();
  }

  private static void writeFinding(JsonGenerator g, Finding f) throws IOException {
    if (f == null) {
      g.writeNullField("finding");
      return;
    }
    g.writeObjectFieldStart("finding");
    g.writeObjectFieldStart("cause");
    g.writeStringField("kind", f.cause().kind());
    if (f.cause() instanceof Cause.ValueMismatch c) {
      g.writeStringField("where", c.where());
    } else if (f.cause() instanceof Cause.MetadataMismatch c) {
      g.writeStringField("where", c.where());
      g.writeStringField("property", c.property());
    } else if (f.cause() instanceof Cause.Rejection c) {
      g.writeStringField("firstLine", c.firstLine());
    } else if (f.cause() instanceof Cause.Crash c) {
      g.writeStringField("signal", c.signal());
    } else if (f.cause() instanceof Cause.Timeout c) {
      g.writeNumberField("seconds", c.seconds());
    } else if (f.cause() instanceof Cause.Contract c) {
      g.writeStringField("rule", c.rule());
      g.writeStringField("subject", c.subject());
    }
    g.writeEndObject();
    g.writeStringField("expected", f.expected());
    g.writeStringField("actual", f.actual());
    g.writeStringField("hint", f.hint());
    if (!f.heatmaps().isEmpty()) {
      g.writeArrayFieldStart("heatmaps");
      for (Heatmap h : f.heatmaps()) {
        g.writeStartObject();
        g.writeStringField("title", h.title());
        g.writeStringField("group", h.group());
        g.writeNumberField("rows", h.rows());
        g.writeNumberField("cols", h.cols());
        g.writeArrayFieldStart("cells");
        for (double c : h.cells()) {
          g.writeNumber(c);
        }
        g.writeEndArray();
        writeInts(g, "marked", h.marked());
        writeInts(g, "nonFinite", h.nonFinite());
        g.writeStringField("note", h.note());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    g.writeEndObject();
  }

  private static void writeInts(JsonGenerator g, String name, List<Integer> values) throws IOException {
    g.writeArrayFieldStart(name);
    for (int v : values) {
      g.writeNumber(v);
    }
    g.writeEndArray();
  }

  private static void writeRepro(JsonGenerator g, Repro r) throws IOException {
    if (r == null) {
      g.writeNullField("repro");
      return;
    }
    g.writeObjectFieldStart("repro");
    g.writeStringField("source", r.source());
    g.writeStringField("op", r.op());
    g.writeStringField("check", r.check());
    g.writeStringField("device", r.device());
    g.writeNumberField("seed", r.seed());
    g.writeNumberField("tries", r.tries());
    g.writeStringField("exampleRef", r.exampleRef());
    g.writeStringField("exampleDescription", r.exampleDescription());
    g.writeBooleanField("oneWorker", r.oneWorker());
    if (r.runtime() != null) {
      g.writeStringField("runtime", r.runtime());
    }
    if (r.script() != null) {
      g.writeStringField("script", r.script());
    }
    g.writeEndObject();
  }

  private static void nullableNumber(JsonGenerator g, String name, Long value) throws IOException {
    if (value == null) {
      g.writeNullField(name);
    } else {
      g.writeNumberField(name, value);
    }
  }
}
