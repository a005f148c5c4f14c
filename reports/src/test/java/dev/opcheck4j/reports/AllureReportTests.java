package dev.opcheck4j.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stub run through Allure's own command line, as {@code ./opcheck report allure DIR} does it. */
class AllureReportTests {

  @Test
  void allureTurnsTheStubRunIntoItsHtmlReportWithOurCategories(@TempDir Path dir) throws Exception {
    Path home = Path.of("..").toAbsolutePath().normalize();
    Assumptions.assumeTrue(AllureHtmlGenerator.binary(home).isPresent(),
        "Skipped: Allure's command line is unpacked by this module's build (generate-test-resources); run through Maven");
    new AllureResultsFormat().write(StubRun.report(), dir);
    Path index = new AllureHtmlGenerator().generate(dir, home);
    assertEquals(dir.resolve("allure-report/index.html"), index);
    String html = Files.readString(index);
    assertTrue(html.length() > 100_000, "a single-file report with its data inlined");
    // the single file inlines its data base64-encoded; categories are matched by Allure itself
    String data = decodedData(html);
    assertTrue(data.contains("Kernel crashes") && data.contains("Kernel timeouts") && data.contains("mutation findings")
        && data.contains("Harness errors"), "categories applied");
  }

  @Test
  void aFolderWithoutResultsSaysHowToMakeThem(@TempDir Path dir) {
    var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new AllureHtmlGenerator().generate(dir, Path.of("..")));
    assertTrue(e.getMessage().startsWith(dir.resolve("allure-results") + " not found: write it with './opcheck check"),
        e.getMessage());
  }

  /** The base64 data blobs the single-file report embeds, decoded and joined. */
  static String decodedData(String html) {
    StringBuilder sb = new StringBuilder();
    var m = java.util.regex.Pattern.compile("d\\('([^']+)','([A-Za-z0-9+/=]+)'\\)").matcher(html);
    while (m.find()) {
      sb.append(m.group(1)).append('\n')
          .append(new String(java.util.Base64.getDecoder().decode(m.group(2)), java.nio.charset.StandardCharsets.UTF_8));
    }
    return sb.toString();
  }
}
