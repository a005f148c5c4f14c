package dev.opcheck4j.reports;

import dev.opcheck4j.api.DocsLocation;
import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.RunReport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code opcheck-report.html}: one self-contained page (inline style and script, no network) with the
 * run block, summary counts and a matrix of ops × check families × devices, each cell coloured by its
 * worst outcome; a click shows each result's facts, example, rerun line and doc link. The data is the
 * JSON report embedded with every {@code <}, {@code >} and {@code &} escaped, and the page's script
 * puts it into the DOM as text only, so nothing from an op library can become markup or script.
 */
public final class HtmlReportFormat extends SingleFileFormat {
  public static final String FILE = "opcheck-report.html";
  private static final String TEMPLATE = "/dev/opcheck4j/reports/report-template.html";
  private static final String DATA = "/*OPCHECK4J-DATA*/null";
  private static final String DOCS = "/*OPCHECK4J-DOCS*/\"\"";

  /** The system property (and JUnit engine key) of the check pages' location ({@link DocsLocation}). */
  public static final String DOCS_URL = DocsLocation.PROPERTY;

  private final String docsBase;

  /** Doc links to where {@link DocsLocation#fromSystem()} says the check pages are, or none. */
  public HtmlReportFormat() {
    this(System.getProperty("opcheck4j.home"), System.getProperty(DocsLocation.PROPERTY));
  }

  /**
   * @param home the opcheck4j clone whose {@code docs/checks/} the links point to, or null
   * @param docsUrl the pages' location ({@code opcheck4j.docsUrl}), or null
   */
  HtmlReportFormat(String home, String docsUrl) {
    super(FILE);
    this.docsBase = DocsLocation.of(docsUrl, home).orElse("");
  }

  HtmlReportFormat(String home) {
    this(home, null);
  }

  @Override
  public String name() {
    return "html";
  }

  @Override
  public Path write(RunReport report, Path dir) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(FILE);
    Files.writeString(file, render(report, docsBase), StandardCharsets.UTF_8);
    return file;
  }

  /** The page, with doc links prefixed by {@code docBase} (an absolute location ending in {@code /}, or empty for none). */
  String render(RunReport report, String docBase) {
    ByteArrayOutputStream json = new ByteArrayOutputStream();
    try {
      new JsonReportFormat().write(report, json, false);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String template = template();
    return template
        .replace(DATA, scriptSafe(json.toString(StandardCharsets.UTF_8).strip()))
        .replace(DOCS, scriptSafe(quote(docBase)));
  }

  /**
   * JSON made safe inside a {@code <script>} element: {@code <}, {@code >} and {@code &} occur in JSON
   * only inside strings, where their unicode escapes mean the same; U+2028/9 are escaped for old parsers,
   * and C1 controls and bidi overrides so that the file itself carries no raw control character.
   */
  static String scriptSafe(String json) {
    // one pass over the characters: the report's JSON is megabytes, and three replaces and a regex
    // over it were a sixth of the parent's CPU time in a 200-op run
    StringBuilder out = null;
    int copied = 0;
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      if (c == '<' || c == '>' || c == '&' || invisible(c)) {
        if (out == null) {
          out = new StringBuilder(json.length() + 1024);
        }
        out.append(json, copied, i).append("\\u").append(HEX[(c >> 12) & 0xf]).append(HEX[(c >> 8) & 0xf])
            .append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
        copied = i + 1;
      }
    }
    return out == null ? json : out.append(json, copied, json.length()).toString();
  }

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** C1 controls (and DEL), the Arabic letter mark, LRM/RLM, U+2028/9, bidi embeddings and isolates. */
  private static boolean invisible(char c) {
    return c >= 0x7f && c <= 0x9f || c == 0x061c || c == 0x200e || c == 0x200f || c >= 0x2028 && c <= 0x202e
        || c >= 0x2066 && c <= 0x2069;
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static String template() {
    try (InputStream in = HtmlReportFormat.class.getResourceAsStream(TEMPLATE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + TEMPLATE);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
