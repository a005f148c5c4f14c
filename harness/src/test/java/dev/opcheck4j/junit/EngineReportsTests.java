package dev.opcheck4j.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.reporting.ReportWriterTests;
import dev.opcheck4j.reporting.ReportWriterTests.TextFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine writes its reports as the command line does: a format that fails is one line, the others are written. */
class EngineReportsTests {
  @Test
  void aFormatThatFailsIsOneLineAndTheOthersAreWritten(@TempDir Path dir) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    new OpCheckEngine(k -> null, () -> out).writeReports(ReportWriterTests.empty(), dir, List.of(new TextFormat("json"),
        new TextFormat("markdown", new IOException("No space left on device")), new TextFormat("html")));
    assertEquals(List.of("opcheck4j: report (json): " + dir.resolve("json.txt"),
        "opcheck4j: report (markdown) not written: No space left on device",
        "opcheck4j: report (html): " + dir.resolve("html.txt")), bytes.toString(StandardCharsets.UTF_8).lines().toList());
  }
}
