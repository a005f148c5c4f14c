package dev.opcheck4j.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.ReportFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seals every format: each is written from the one {@link StubRun} and compared with its golden
 * file, so a change to a format is a visible diff. After an intended change, regenerate with
 * {@code mvn -pl reports test -Dtest=GoldenFilesTests -Dopcheck4j.updateGolden=true} and review the diff.
 */
class GoldenFilesTests {
  static final Path GOLDEN = Path.of("src/test/resources/golden");

  /**
   * Every format the service loader finds, as a user's run would: none can be added without a golden
   * file. The three that read the environment (the HTML and SARIF doc links' location, GitHub's step
   * summary) are made without it, so the files do not depend on where the tests run: SARIF's with a
   * fixed absolute location, the HTML's with none.
   */
  static Stream<ReportFormat> formats() {
    return ServiceLoader.load(ReportFormat.class).stream().map(ServiceLoader.Provider::get).map(f -> switch (f.name()) {
      case "html" -> new HtmlReportFormat(null);
      case "markdown" -> new MarkdownSummaryFormat(var -> null);
      case "sarif" -> new SarifReportFormat(HtmlMatrixScaleTests.DOCS);
      default -> f;
    });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("formats")
  void matchesItsGoldenFile(ReportFormat format, @TempDir Path dir) throws IOException {
    Path written = format.write(StubRun.report(), dir);
    String actual = Files.isDirectory(written) ? concatenated(written) : Files.readString(written, StandardCharsets.UTF_8);
    Path golden = GOLDEN.resolve(written.getFileName() + (Files.isDirectory(written) ? ".txt" : ""));
    if (Boolean.getBoolean("opcheck4j.updateGolden")) {
      Files.createDirectories(GOLDEN);
      Files.writeString(golden, actual, StandardCharsets.UTF_8);
    }
    assertTrue(Files.isRegularFile(golden), "the " + format.name() + " format has no golden file " + golden
        + "; write one (see this class's doc) and review it");
    assertEquals(Files.readString(golden, StandardCharsets.UTF_8), actual,
        "the " + format.name() + " format changed; if intended, regenerate the golden files (see this class's doc)");
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

  /** The formats the README promises are registered (a new format needs only its class, its line and its golden file). */
  @Test
  void theServiceLoaderFindsTheBuiltInFormats() {
    List<String> names = formats().map(ReportFormat::name).toList();
    assertTrue(names.containsAll(List.of("json", "html", "markdown", "allure")), names::toString);
    assertEquals(names.size(), new java.util.HashSet<>(names).size(), "two formats share a name: " + names);
  }
}
