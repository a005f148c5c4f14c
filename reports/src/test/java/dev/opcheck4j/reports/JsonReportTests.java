package dev.opcheck4j.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ReportReader;
import dev.opcheck4j.api.RunReport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JSON report against its shipped schema, and read back by the reader merge uses. */
class JsonReportTests {
  static final ObjectMapper JSON = new ObjectMapper();

  static Schema schema() throws IOException {
    try (InputStream in = JsonReportFormat.class.getResourceAsStream(JsonReportFormat.SCHEMA_RESOURCE)) {
      return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(in);
    }
  }

  static JsonNode stubJson() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new JsonReportFormat().write(StubRun.report(), out);
    return JSON.readTree(out.toByteArray());
  }

  @Test
  void theStubRunIsValidAgainstTheShippedSchema() throws IOException {
    List<Error> errors = schema().validate(stubJson());
    assertEquals(List.of(), errors.stream().map(Error::toString).toList());
  }

  @Test
  void theSchemaRejectsWhatTheFormatMustNotWrite() throws IOException {
    ObjectNode dash = (ObjectNode) stubJson();
    ((ObjectNode) dash.get("results").get(1)).put("device", "-");
    ((ObjectNode) dash.get("results").get(1)).put("outcome", "green");
    List<String> errors = schema().validate(dash).stream().map(e -> e.getInstanceLocation().toString()).toList();
    assertTrue(errors.stream().anyMatch(e -> e.contains("outcome")), errors.toString());
    ObjectNode noRun = (ObjectNode) stubJson();
    noRun.remove("run");
    assertFalse(schema().validate(noRun).isEmpty());
    ObjectNode bothOpAndLibrary = (ObjectNode) stubJson();
    ((ObjectNode) bothOpAndLibrary.get("results").get(0)).put("op", "stub::*");
    assertFalse(schema().validate(bothOpAndLibrary).isEmpty(), "a library-scope result names no op");
  }

  @Test
  void nullNotDashAndLibraryScopeResultsNameTheLibrary() throws IOException {
    JsonNode results = stubJson().get("results");
    assertTrue(results.get(0).get("op").isNull());
    assertEquals("libstub_ops.so", results.get(0).get("library").asText());
    assertTrue(results.get(1).get("device").isNull());
    assertTrue(results.get(1).get("example").isNull());
    JsonNode generated = results.get(7).get("example");
    assertEquals("specs/stub_ops.json#ops[1].examples[0]", generated.get("ref").asText());
    assertTrue(generated.get("generated").asBoolean());
    assertEquals(7, generated.get("try").asInt());
    assertEquals(42, generated.get("seed").asLong());
  }

  @Test
  void aCachedRunListsItsReplayedOpsValidAndReadBackAndOtherRunsWriteNoCachedKey(@TempDir Path dir) throws Exception {
    assertFalse(stubJson().path("run").has("cached"), "a run without a cache writes the report it always did");
    RunReport stub = StubRun.report();
    RunReport cached = new RunReport(stub.run().withCached(List.of("libdemo.so", "demo::op")), stub.checks(),
        stub.results());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new JsonReportFormat().write(cached, out);
    JsonNode json = JSON.readTree(out.toByteArray());
    assertEquals(List.of(), schema().validate(json).stream().map(Error::toString).toList());
    assertEquals("[\"libdemo.so\",\"demo::op\"]", json.path("run").path("cached").toString());
    assertEquals(List.of("libdemo.so", "demo::op"), reader().read(new JsonReportFormat().write(cached, dir)).run().cached());
  }

  @Test
  void readsWhatItWroteBack(@TempDir Path dir) throws Exception {
    RunReport stub = StubRun.report();
    Path file = new JsonReportFormat().write(stub, dir);
    RunReport back = reader().read(file);
    assertEquals(stub.run(), back.run());
    assertEquals(stub.checks().stream().map(c -> List.of(c.id(), c.summary(), c.severity(), c.scope())).toList(),
        back.checks().stream().map(c -> List.of(c.id(), c.summary(), c.severity(), c.scope())).toList());
    assertEquals(stub.results().size(), back.results().size());
    for (int i = 0; i < stub.results().size(); i++) {
      CheckResult a = stub.results().get(i);
      CheckResult b = back.results().get(i);
      assertEquals(java.util.Arrays.asList(a.opOrNull(), a.library(), a.check(), a.device(), a.outcome(), a.facts(), a.exampleInfo()),
          java.util.Arrays.asList(b.opOrNull(), b.library(), b.check(), b.device(), b.outcome(), b.facts(), b.exampleInfo()));
    }
  }

  @Test
  void generationThatStoppedEarlyWritesItsTriesAndLostTriesValidAndReadsThemBack(@TempDir Path dir) throws Exception {
    RunReport stub = StubRun.report();
    List<CheckResult> results = new java.util.ArrayList<>(stub.results());
    // a summary over the generated inputs of the stub run (100 tries) that stopped after 12
    results.add(new CheckResult("stub::op", "determinism", "cpu", "generated (100 tries)", dev.opcheck4j.api.Outcome.PASSED,
        List.of(dev.opcheck4j.api.Fact.of("inputs checked", 10)), 5).withExample(
            new dev.opcheck4j.api.ExampleRef(null, true, null, 7L, "12 of 100 tries from 1 example", 12)));
    RunReport cut = new RunReport(stub.run(), stub.checks(), results);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new JsonReportFormat().write(cut, out);
    JsonNode json = JSON.readTree(out.toByteArray());
    assertEquals(List.of(), schema().validate(json).stream().map(Error::toString).toList());
    assertEquals(12, json.get("results").get(results.size() - 1).get("example").get("tries").asInt());
    assertFalse(stubJson().get("results").get(7).get("example").has("tries"), "a run that made every try writes no tries");
    RunReport back = reader().read(new JsonReportFormat().write(cut, dir));
    assertEquals(12, back.results().get(results.size() - 1).exampleInfo().tries());
    dev.opcheck4j.api.Coverage.Entry entry = back.coverage().of("stub::op").stream()
        .filter(e -> e.family().equals("determinism")).findFirst().orElseThrow();
    assertEquals(88, entry.lost());
    assertEquals(12, entry.generated());
  }

  @Test
  void readsAVersionOneReport(@TempDir Path dir) throws Exception {
    Path v1 = Files.writeString(dir.resolve("old.json"), """
        {"schemaVersion": 1, "torch": "2.10.0", "presets": "1.5.13", "startedAt": "2026-11-20T10:00:00Z",
         "durationMs": 10, "results": [
          {"op": "my_ops::mul_add", "check": "schema.types", "device": "-", "example": "-", "outcome": "passed",
           "facts": [], "durationMs": 1}],
         "summary": {"passed": 1, "failed": 0, "skipped": 0, "errored": 0}}
        """);
    RunReport r = reader().read(v1);
    assertEquals("2.10.0", r.torchVersion());
    assertNull(r.results().get(0).deviceOrNull());
    assertNull(r.results().get(0).exampleInfo());
  }

  @Test
  void rejectsAnUnknownVersionNamingFileAndVersion(@TempDir Path dir) throws IOException {
    Path v3 = Files.writeString(dir.resolve("future.json"), "{\"schemaVersion\": 3, \"results\": []}");
    var e = assertThrows(ReportReader.UnsupportedReportException.class, () -> reader().read(v3));
    assertEquals(v3 + ": report schema version 3 is not supported; this opcheck4j reads versions 1 and 2"
        + " (write it again with this version, or use the opcheck4j that wrote it)", e.getMessage());
    Path other = Files.writeString(dir.resolve("other.json"), "{\"name\": \"x\"}");
    assertEquals(other + ": not an opcheck4j report (no schemaVersion)",
        assertThrows(ReportReader.UnsupportedReportException.class, () -> reader().read(other)).getMessage());
  }

  static ReportReader reader() {
    return ServiceLoader.load(ReportReader.class).findFirst().orElseThrow();
  }
}
