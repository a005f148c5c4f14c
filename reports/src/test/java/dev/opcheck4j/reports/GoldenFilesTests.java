package dev.opcheck4j.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.ReportFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seals every format: each is written from the one {@link StubRun} and compared with its golden
 * file, so a change to a format is a visible diff. After an intended change, regenerate with
 * {@code mvn -pl reports test -Dtest=GoldenFilesTests -Dopcheck4j.updateGolden=true} and review the diff.
 */
class GoldenFilesTests {
  static final Path GOLDEN = Path.of("src/test/resources/golden");

  static ReportFormat format(String name) {
    return switch (name) {
      case "json" -> new JsonReportFormat();
      case "html" -> new HtmlReportFormat(null);
      case "markdown" -> new MarkdownSummaryFormat(var -> null);
      case "allure" -> new AllureResultsFormat();
      default -> throw new IllegalArgumentException(name);
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"json", "html", "markdown", "allure"})
  void matchesItsGoldenFile(String name, @TempDir Path dir) throws IOException {
    Path written = format(name).write(StubRun.report(), dir);
    String actual = Files.isDirectory(written) ? concatenated(written) : Files.readString(written, StandardCharsets.UTF_8);
    Path golden = GOLDEN.resolve(written.getFileName() + (Files.isDirectory(written) ? ".txt" : ""));
    if (Boolean.getBoolean("opcheck4j.updateGolden")) {
      Files.createDirectories(GOLDEN);
      Files.writeString(golden, actual, StandardCharsets.UTF_8);
    }
    assertEquals(Files.readString(golden, StandardCharsets.UTF_8), actual,
        "the " + name + " format changed; if intended, regenerate the golden files (see this class's doc)");
  }

  /** A folder's files, sorted by name, each under a {@code ==> name <==} line. */
  static String concatenated(Path dir) throws IOException {
    StringBuilder sb = new StringBuilder();
    try (var files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        sb.append("==> ").append(f.getFileName()).append(" <==\n").append(Files.readString(f, f.toString().endsWith(".properties") ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8));
        if (sb.charAt(sb.length() - 1) != '\n') {
          sb.append('\n');
        }
      }
    }
    return sb.toString();
  }

  @Test
  void everyFormatIsFoundByTheServiceLoader() {
    assertEquals(List.of("json", "html", "markdown", "allure"),
        ServiceLoader.load(ReportFormat.class).stream().map(p -> p.get().name()).toList());
  }
}
