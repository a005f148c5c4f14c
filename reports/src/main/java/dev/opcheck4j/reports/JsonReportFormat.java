package dev.opcheck4j.reports;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.RunReport;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code opcheck-report.json}, schema version 1:
 * {@code {schemaVersion, torch, presets, startedAt, durationMs, results: [{op, check, device,
 * example, outcome, facts: [{key, value}], durationMicros}], summary: {passed, failed, skipped, errored}}}.
 */
public final class JsonReportFormat implements ReportFormat {
  public static final String FILE = "opcheck-report.json";
  public static final int SCHEMA_VERSION = 1;

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
    try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeNumberField("schemaVersion", SCHEMA_VERSION);
      g.writeStringField("torch", report.torchVersion());
      g.writeStringField("presets", report.presetsVersion());
      g.writeStringField("startedAt", report.startedAt().toString());
      g.writeNumberField("durationMs", report.durationMs());
      g.writeArrayFieldStart("checks");
      for (CheckInfo c : report.checks()) {
        g.writeStartObject();
        g.writeStringField("id", c.id());
        g.writeStringField("severity", c.severity().label());
        g.writeStringField("summary", c.summary());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeArrayFieldStart("results");
      for (CheckResult r : report.results()) {
        g.writeStartObject();
        g.writeStringField("op", r.op());
        g.writeStringField("check", r.check());
        g.writeStringField("device", r.device());
        g.writeStringField("example", r.example());
        g.writeStringField("outcome", r.outcome().label());
        g.writeArrayFieldStart("facts");
        for (Fact f : r.facts()) {
          g.writeStartObject();
          g.writeStringField("key", f.key());
          g.writeStringField("value", f.value());
          g.writeEndObject();
        }
        g.writeEndArray();
        g.writeNumberField("durationMicros", r.durationMicros());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeObjectFieldStart("summary");
      for (Outcome o : Outcome.values()) {
        g.writeNumberField(o.label(), report.count(o));
      }
      g.writeEndObject();
      g.writeEndObject();
      g.writeRaw('\n');
    }
  }
}
