package dev.opcheck4j.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MarkdownSummaryTests {

  @Test
  void aHugeRunStaysUnderTheLimitAndSaysWhatWasCut() {
    List<CheckResult> results = new ArrayList<>();
    for (int op = 0; op < 2_000; op++) {
      for (int c = 0; c < 3; c++) {
        results.add(new CheckResult("big::op_" + op, "check.c" + c, "cpu", "big.json#ops[" + op + "].examples[0]",
            Outcome.FAILED, List.of(new Fact("expected", "x".repeat(2_000)), new Fact("but was", "y")), 1));
      }
    }
    RunReport big = new RunReport(StubRun.report().run(), List.of(), results);
    String md = new MarkdownSummaryFormat(v -> null).render(big);
    assertTrue(md.length() < MarkdownSummaryFormat.LIMIT, "length " + md.length());
    assertTrue(md.contains("**Cut to stay under 65,000 characters:**"), md.substring(md.length() - 500));
    assertTrue(md.matches("(?s).*\\d+ of 2000 ops left out of the table.*"), md.substring(md.length() - 500));
    assertTrue(md.matches("(?s).*\\d+ of 6000 failures left out.*"));
    assertTrue(md.indexOf("### Failures") < md.indexOf("| op |"), "the failures come before the table");
  }

  @Test
  void failuresComeFirstAndOpenTheWarningsLastAndFolded() {
    String md = new MarkdownSummaryFormat(v -> null).render(StubRun.report());
    int failures = md.indexOf("### Failures");
    int table = md.indexOf("| op |");
    int warnings = md.indexOf("### Warnings");
    assertTrue(failures > 0 && failures < table && table < warnings, md);
    assertTrue(md.substring(failures, table).contains("<details open><summary>FAILED <code>mutation.undeclared</code>"), md);
    assertFalse(md.substring(failures, table).contains("WARNING"), md);
    assertTrue(md.substring(warnings).startsWith("### Warnings\n\n<details><summary>WARNING <code>mutation.unused</code>"), md);
  }

  @Test
  void theStubRunIsNotCut() {
    String md = new MarkdownSummaryFormat(v -> null).render(StubRun.report());
    assertFalse(md.contains("Cut to stay under"));
    assertTrue(md.contains("raised: <script>alert(1)</script>"), "inside a fenced block, where it is text");
    String outsideCode = md.replaceAll("(?s)```text\n.*?```", "");
    assertFalse(outsideCode.contains("<script"), outsideCode);
  }

  @Test
  void appendsToTheGitHubStepSummaryWhenSet(@TempDir Path dir) throws Exception {
    Path summary = Files.writeString(dir.resolve("step-summary.md"), "earlier step\n");
    Map<String, String> env = Map.of("GITHUB_STEP_SUMMARY", summary.toString());
    Path written = new MarkdownSummaryFormat(env::get).write(StubRun.report(), dir.resolve("out"));
    assertEquals("earlier step\n" + Files.readString(written) + "\n", Files.readString(summary));
  }
}
