package dev.opcheck4j.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import dev.opcheck4j.api.ReportReader;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An interrupted run, or one merged from shards that did not finish, says so in every format. */
class CompletionMarkTests {
  static RunReport marked(RunInfo.Completion c) {
    RunReport stub = StubRun.report();
    return new RunReport(stub.run().withCompletion(c), stub.checks(), stub.results());
  }

  static final RunInfo.Completion INTERRUPTED = RunInfo.Completion.interruptedBy("SIGINT");
  static final RunInfo.Completion INCOMPLETE = new RunInfo.Completion(null,
      List.of(new RunInfo.Incomplete("out/shard-2", List.of("stub::b", "stub::c"))));

  @Test
  void theJsonRunBlockCarriesTheMarkAndIsValidAndReadBack(@TempDir Path dir) throws Exception {
    for (RunInfo.Completion c : List.of(INTERRUPTED, INCOMPLETE)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      new JsonReportFormat().write(marked(c), out);
      JsonNode json = JsonReportTests.JSON.readTree(out.toByteArray());
      List<Error> errors = JsonReportTests.schema().validate(json);
      assertTrue(errors.isEmpty(), errors::toString);
      JsonNode completion = json.path("run").path("completion");
      assertFalse(completion.path("complete").asBoolean());
      assertEquals(c.mark(), completion.path("mark").asText());
      Path file = new JsonReportFormat().write(marked(c), dir);
      RunReport back = ServiceLoader.load(ReportReader.class).findFirst().orElseThrow().read(file);
      assertEquals(c, back.run().completion());
    }
  }

  @Test
  void theSchemaRejectsACompleteRunWithAMark() throws Exception {
    JsonNode json = JsonReportTests.stubJson();
    ((com.fasterxml.jackson.databind.node.ObjectNode) json.path("run").path("completion")).put("mark", "interrupted");
    assertFalse(JsonReportTests.schema().validate(json).isEmpty());
  }

  @Test
  void markdownAndHtmlHeadersCarryTheMark(@TempDir Path dir) throws Exception {
    String md = new MarkdownSummaryFormat(v -> null).render(marked(INTERRUPTED));
    String head = md.substring(0, md.indexOf("\n|"));
    assertTrue(head.contains("interrupted by SIGINT"), head);
    String mdIncomplete = new MarkdownSummaryFormat(v -> null).render(marked(INCOMPLETE));
    assertTrue(mdIncomplete.contains("incomplete: 1 shard did not finish (2 ops missing: stub::b, stub::c)"), mdIncomplete);
    assertFalse(new MarkdownSummaryFormat(v -> null).render(StubRun.report()).contains("interrupted"));

    Path html = new HtmlReportFormat().write(marked(INCOMPLETE), dir);
    String text = Files.readString(html, StandardCharsets.UTF_8);
    assertTrue(text.contains("id=\"completion\""));
    assertTrue(text.contains("\"mark\":\"incomplete: 1 shard did not finish"), "the header reads the mark from the run block");
  }

  @Test
  void sarifSaysTheRunDidNotCheckEverythingInItsInvocation(@TempDir Path dir) throws Exception {
    for (RunInfo.Completion c : List.of(INTERRUPTED, INCOMPLETE)) {
      JsonNode sarif = JsonReportTests.JSON.readTree(new SarifReportFormat().write(marked(c), dir).toFile());
      JsonNode invocation = sarif.path("runs").path(0).path("invocations").path(0);
      assertFalse(invocation.path("executionSuccessful").asBoolean(true));
      assertEquals(c.mark(), invocation.path("toolExecutionNotifications").path(0).path("message").path("text").asText());
    }
    JsonNode complete = JsonReportTests.JSON.readTree(new SarifReportFormat().write(StubRun.report(), dir).toFile());
    assertTrue(complete.path("runs").path(0).path("invocations").isMissingNode());
  }
}
