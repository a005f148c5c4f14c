package dev.opcheck4j.reports;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.DocsLocation;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.ResultText;
import dev.opcheck4j.api.RunReport;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code opcheck-report.sarif}: failures, warnings and notes as SARIF 2.1.0 (levels {@code error}, {@code warning}
 * and {@code note}), the format code-scanning tools
 * read (GitHub code scanning, GitLab, IDE viewers). Each check is a rule (its summary, severity and, where
 * an absolute location of the pages is known, its doc page); each finding a result located at its op (a logical location, since an op has no source line
 * here), with the message in the one message shape.
 */
public final class SarifReportFormat extends SingleFileFormat {
  static final String FILE = "opcheck-report.sarif";

  private final String docsBase;

  /** Rules link their pages where {@link DocsLocation#fromSystem()} says they are, or not at all. */
  public SarifReportFormat() {
    this(DocsLocation.fromSystem().orElse(null));
  }

  /** @param docsBase the check pages' absolute location ending in {@code /}, or null for no {@code helpUri} */
  SarifReportFormat(String docsBase) {
    super(FILE);
    this.docsBase = docsBase;
  }

  @Override
  public String name() {
    return "sarif";
  }

  @Override
  public Path write(RunReport report, Path dir) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(FILE);
    try (OutputStream out = Files.newOutputStream(file);
        JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeStringField("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
      g.writeStringField("version", "2.1.0");
      g.writeArrayFieldStart("runs");
      g.writeStartObject();
      g.writeObjectFieldStart("tool");
      g.writeObjectFieldStart("driver");
      g.writeStringField("name", "opcheck4j");
      if (report.run().toolVersion() != null) {
        g.writeStringField("version", report.run().toolVersion());
      }
      g.writeArrayFieldStart("rules");
      for (CheckInfo c : report.checks()) {
        g.writeStartObject();
        g.writeStringField("id", c.id());
        g.writeObjectFieldStart("shortDescription");
        g.writeStringField("text", c.summary());
        g.writeEndObject();
        g.writeObjectFieldStart("defaultConfiguration");
        g.writeStringField("level", c.severity().label());
        g.writeEndObject();
        // the rule says what it asserts without its page (a viewer may have no access to it); the page's
        // address only where it is absolute: a relative one resolves against wherever the file is opened
        g.writeObjectFieldStart("help");
        g.writeStringField("text", c.summary() + " (opcheck4j's " + c.doc() + "; each result's hint says how to fix it)");
        g.writeEndObject();
        if (docsBase != null) {
          g.writeStringField("helpUri", DocsLocation.page(docsBase, c.id()));
        }
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
      g.writeEndObject();
      String mark = report.run().completion().mark();
      if (mark != null) {
        // an interrupted or incomplete run did not check everything: SARIF says so in the invocation
        g.writeArrayFieldStart("invocations");
        g.writeStartObject();
        g.writeBooleanField("executionSuccessful", false);
        g.writeArrayFieldStart("toolExecutionNotifications");
        g.writeStartObject();
        g.writeStringField("level", "error");
        g.writeObjectFieldStart("message");
        g.writeStringField("text", mark);
        g.writeEndObject();
        g.writeEndObject();
        g.writeEndArray();
        g.writeEndObject();
        g.writeEndArray();
      }
      g.writeArrayFieldStart("results");
      for (CheckResult r : report.results()) {
        if (r.outcome() == Outcome.FAILED || r.outcome() == Outcome.WARNING || r.outcome() == Outcome.NOTE) {
          result(g, r);
        }
      }
      g.writeEndArray();
      g.writeEndObject();
      g.writeEndArray();
      g.writeEndObject();
    }
    return file;
  }

  private static void result(JsonGenerator g, CheckResult r) throws IOException {
    g.writeStartObject();
    g.writeStringField("ruleId", r.check());
    g.writeStringField("level", switch (r.outcome()) {
      case FAILED -> "error";
      case NOTE -> "note"; // SARIF's level for what is worth knowing and not a problem
      default -> "warning";
    });
    g.writeObjectFieldStart("message");
    g.writeStringField("text", ResultText.render(r));
    g.writeEndObject();
    g.writeArrayFieldStart("locations");
    g.writeStartObject();
    g.writeArrayFieldStart("logicalLocations");
    g.writeStartObject();
    g.writeStringField("fullyQualifiedName", r.library() != null ? r.library() : r.op());
    g.writeStringField("kind", r.library() != null ? "module" : "function");
    g.writeEndObject();
    g.writeEndArray();
    g.writeEndObject();
    g.writeEndArray();
    g.writeObjectFieldStart("properties");
    g.writeStringField("device", r.device());
    g.writeStringField("example", r.example());
    if (r.runtime() != null) {
      g.writeStringField("runtime", r.runtime());
    }
    if (r.finding() != null) {
      g.writeStringField("cause", r.finding().cause().kind());
    }
    g.writeEndObject();
    g.writeEndObject();
  }
}
