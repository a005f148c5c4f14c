package dev.opcheck4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.opcheck4j.reporting.ReportWriterTests;
import dev.opcheck4j.reporting.ReportWriterTests.TextFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A disk that fills while the reports are written leaves no cut-off report, the others whole, and a usage error. */
class ReportWritingTests {
  @Test
  void aFormatThatFailsMidwayIsDiscardedTheOthersAreWrittenAndTheRunSaysWhichIsMissing(@TempDir Path dir) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    UsageException e = assertThrows(UsageException.class, () -> RunSummary.writeReports(ReportWriterTests.empty(),
        dir, new PrintStream(out, true, StandardCharsets.UTF_8), List.of(new TextFormat("json"),
            new TextFormat("markdown", new IOException("No space left on device")), new TextFormat("html"))));
    assertEquals("report dir: no markdown report was written (nothing cut off is left); the results are in "
        + dir.resolve("opcheck-results.jsonl") + " (complete lines)", e.getMessage());
    assertEquals(List.of("report (json): " + dir.resolve("json.txt"),
        "report (markdown) not written: No space left on device", "report (html): " + dir.resolve("html.txt")),
        out.toString(StandardCharsets.UTF_8).lines().toList());
    assertFalse(Files.exists(dir.resolve("markdown.txt")), "the cut-off report is gone");
  }
}
