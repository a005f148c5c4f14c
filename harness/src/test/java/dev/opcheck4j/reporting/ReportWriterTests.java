package dev.opcheck4j.reporting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A format that fails leaves no file of its own and one line naming it; every other format is written. */
public class ReportWriterTests {
  /** Writes {@code name}.txt, or half of it and then fails with {@code failure}. */
  public record TextFormat(String name, Exception failure) implements ReportFormat {
    /** A format that writes its file whole. */
    public TextFormat(String name) {
      this(name, null);
    }

    @Override
    public Path write(RunReport report, Path dir) throws IOException {
      Path file = dir.resolve(name + ".txt");
      Files.writeString(file, failure != null ? "{\"cut" : "whole " + name);
      if (failure instanceof IOException e) {
        throw e;
      } else if (failure != null) {
        throw (RuntimeException) failure;
      }
      return file;
    }

    @Override
    public void discard(Path dir) throws IOException {
      Files.deleteIfExists(dir.resolve(name + ".txt"));
    }
  }

  /** A run with no results. */
  public static RunReport empty() {
    return new RunReport(RunInfo.minimal("2", "1", Instant.EPOCH, 0), List.of(), List.of());
  }

  @Test
  void aFormatThatThrowsIsReportedAndDiscardedAndTheOthersAreWritten(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("html.txt"), "an earlier run's report");
    Files.writeString(dir.resolve("sarif.txt"), "an earlier run's report");
    List<ReportWriter.Written> written = ReportWriter.write(empty(), dir, List.of(new TextFormat("json"),
        new TextFormat("markdown", new IOException("No space left on device")),
        new TextFormat("sarif", new IllegalStateException("a bug in the format")), new TextFormat("html")));
    assertEquals(List.of("report (json): " + dir.resolve("json.txt"),
        "report (markdown) not written: No space left on device",
        "report (sarif) not written: a bug in the format",
        "report (html): " + dir.resolve("html.txt")), written.stream().map(ReportWriter.Written::line).toList());
    assertEquals("whole json", Files.readString(dir.resolve("json.txt")));
    assertEquals("whole html", Files.readString(dir.resolve("html.txt")), "written after a format that failed");
    assertFalse(Files.exists(dir.resolve("markdown.txt")), "the cut-off report is gone");
    assertFalse(Files.exists(dir.resolve("sarif.txt")), "no report of an earlier run is left beside this run's");
  }
}
