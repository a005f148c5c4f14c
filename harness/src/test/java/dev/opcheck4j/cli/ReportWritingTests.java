package dev.opcheck4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A disk that fills while the reports are written leaves no cut-off report and none of an earlier run. */
class ReportWritingTests {
  /** Writes {@code name}.txt, or half of it and then fails as a full disk does. */
  private record Format(String name, boolean fills) implements ReportFormat {
    @Override
    public Path write(RunReport report, Path dir) throws IOException {
      Path file = dir.resolve(name + ".txt");
      Files.writeString(file, fills ? "{\"cut" : "whole " + name);
      if (fills) {
        throw new IOException("No space left on device");
      }
      return file;
    }

    @Override
    public void discard(Path dir) throws IOException {
      Files.deleteIfExists(dir.resolve(name + ".txt"));
    }
  }

  @Test
  void aFormatThatFailsMidwayIsDiscardedWithTheEarlierRunsFilesOfTheFormatsAfterIt(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("html.txt"), "an earlier run's report");
    RunReport report = new RunReport(RunInfo.minimal("2", "1", Instant.EPOCH, 0), List.of(), List.of());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    UsageException e = assertThrows(UsageException.class, () -> RunSummary.writeReports(report, dir,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        List.of(new Format("json", false), new Format("markdown", true), new Format("html", false))));
    assertEquals("report dir: no space left on device while writing the markdown report; no markdown, html report "
        + "was written (nothing cut off is left); the results are in " + dir.resolve("opcheck-results.jsonl")
        + " (complete lines)", e.getMessage());
    assertEquals("whole json", Files.readString(dir.resolve("json.txt")), "a whole report of this run stays");
    assertFalse(Files.exists(dir.resolve("markdown.txt")), "the cut-off report is gone");
    assertFalse(Files.exists(dir.resolve("html.txt")), "no report of an earlier run is left beside this run's");
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("report (json): " + dir.resolve("json.txt")));
  }
}
