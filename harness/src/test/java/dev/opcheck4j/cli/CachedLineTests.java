package dev.opcheck4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.checks.builtin.CheckCatalog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The console's {@code cached: N of M ops} counts rows of its table, never more than there are. */
class CachedLineTests {
  private static String cachedLine(List<String> cached, List<CheckResult> results) {
    RunReport report = new RunReport(RunInfo.minimal("2", "1", Instant.EPOCH, 0).withCached(cached),
        CheckCatalog.builtin(), results);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    RunSummary.printSummary(report, new PrintStream(out, true, StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("cached:")).findFirst().orElse(null);
  }

  private static CheckResult result(String op) {
    return new CheckResult(op, "reference.values", "cpu", "spec.json#ops[0].examples[0]", Outcome.PASSED, List.of(), 1);
  }

  @Test
  void aReplayedJobWithoutResultsIsNoCachedOp() {
    // --check reference.values: the library-wide job replays nothing, the op is the one row
    assertEquals("cached: 1 of 1 ops (results replayed from --cache)",
        cachedLine(List.of("libvalue_ops.so", "value_ops::sine"), List.of(result("value_ops::sine"))));
  }

  @Test
  void anOpOfTwoTargetsIsOneCachedRow() {
    assertEquals("cached: 2 of 2 ops (results replayed from --cache)",
        cachedLine(List.of("ns::a", "ns::b", "ns::a", "ns::b"), List.of(result("ns::a"), result("ns::b"),
            result("ns::a"), result("ns::b"))));
  }

  @Test
  void resultsOfALibraryWideCheckAboutOpsAreTheLibraryJobs() {
    // --baseline B --check schema.compatible: the library's job gives one result per op, the ops' jobs none
    List<CheckResult> results = List.of(
        new CheckResult("compat::a", "schema.compatible", "-", "-", Outcome.PASSED, List.of(), 1),
        new CheckResult("compat::b", "schema.compatible", "-", "-", Outcome.PASSED, List.of(), 1));
    assertEquals("cached: 2 of 2 ops (results replayed from --cache)", cachedLine(List.of("libcompat_v1.so"), results));
    assertEquals(null, cachedLine(List.of("libcompat_v1.so"), List.of(result("ns::a"))),
        "the op's own job ran: no row was replayed, and no line says so");
  }
}
