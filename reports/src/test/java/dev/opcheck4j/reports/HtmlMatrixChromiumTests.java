package dev.opcheck4j.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML matrix of the stub run opened in real headless Chromium: the page's script ran, the
 * cells and counts are there, the hostile kernel message is text, and a screenshot is left at
 * {@code reports/target/screenshots/} for a person to look at. Skipped, with the reason, where
 * Chromium is not installed ({@code .ci/run} installs it).
 */
class HtmlMatrixChromiumTests {
  static final Path SCREENSHOTS = Path.of("target/screenshots");
  static Chromium chromium;
  @TempDir static Path dir;
  static Path page;

  @BeforeAll
  static void writePage() throws Exception {
    chromium = Chromium.required();
    page = new HtmlReportFormat(null).write(StubRun.report(), dir);
  }

  static String url(String... settings) {
    return Chromium.url(page, settings);
  }

  static int count(String html, String regex) {
    return Chromium.count(html, regex);
  }

  @Test
  void theMatrixHasACellPerOpFamilyAndDeviceColouredByItsWorstOutcome() throws Exception {
    String dom = chromium.dumpDom(page.toUri().toString(), dir);
    assertTrue(dom.contains("data-ready=\"true\""), "the page's script did not finish:\n" + dom);
    // 6 rows (the library and 5 ops) x 10 columns (registration, schema, kernel/cpu, mutation/cpu, fake/cpu,
    // fake/meta, gradcheck/cpu, determinism/cpu, trace/cpu for the note, and alias for the unexpected pass);
    // cuda, where nothing ran, is one column saying why
    assertEquals(6, count(dom, "<tr data-op=\""));
    assertEquals(60, count(dom, "<td class=\"cell "));
    assertTrue(dom.contains("data-kind=\"unexpected-pass\" data-op=\"stub::good\" title=\"1 unexpected pass\""), dom);
    assertEquals(6, count(dom, "<td class=\"collapsed\" data-device=\"cuda\""));
    assertTrue(dom.contains("<td class=\"cell k-crashed\" data-family=\"kernel\" data-device=\"cpu\" data-kind=\"crashed\""
        + " data-op=\"stub::crashy\""), dom);
    assertTrue(dom.contains("data-family=\"mutation\" data-device=\"cpu\" data-kind=\"failed\" data-op=\"stub::scale\""
        + " title=\"1 failed, 1 warning\""), dom);
    assertTrue(dom.contains("data-family=\"trace\" data-device=\"cpu\" data-kind=\"note\" data-op=\"stub::scale\""
        + " title=\"1 note\""), "a note's cell is a note: " + dom);
    assertTrue(dom.contains("<td class=\"collapsed\" data-device=\"cuda\" data-collapsed=\"true\" title=\"no CUDA device in this"
        + " process (torch.cuda_is_available() is false)\">\u20131</td>"), "stub::good's skipped cuda result, counted in the collapsed column");
    assertTrue(dom.contains("data-family=\"gradcheck\" data-device=\"cpu\" data-kind=\"not-applicable\" data-op=\"stub::scale\""), dom);
    for (String[] c : new String[][] {{"crashed", "2"}, {"errored", "1"}, {"failed", "2"}, {"unexpected-pass", "1"},
        {"warning", "1"}, {"expected-failure", "1"}, {"note", "1"}, {"skipped", "2"}, {"passed", "6"}}) {
      assertTrue(dom.contains("id=\"count-" + c[0] + "\"><b>" + c[1] + "</b>"), c[0] + " count:\n" + dom);
    }
    assertTrue(dom.contains("no CUDA device in this process"), "the run block says why cuda was skipped");
  }

  @Test
  void eachOpsKernelSourceIsShownWithItsLinesMarkedByWhatRanThem() throws Exception {
    String dom = chromium.dumpDom(page.toUri().toString(), dir);
    assertTrue(dom.contains("data-ready=\"true\""), dom);
    assertTrue(dom.contains("<section id=\"kernel-lines\">"), "shown: the run has a library built with coverage");
    assertTrue(dom.contains("<details class=\"kernel-op\" data-op=\"stub::scale\" open=\"\">"), "the first op open:\n" + dom);
    assertTrue(dom.contains("examples: 75% of 4 lines, 50% of 2 branches"), dom);
    for (String[] line : new String[][] {{"10", "examples"}, {"11", "no-code"}, {"12", "examples"}, {"13", "generated"}}) {
      assertTrue(dom.contains("<span class=\"l-" + line[1] + "\" data-line=\"" + line[0] + "\" data-run=\"" + line[1] + "\">"),
          "line " + line[0] + " marked " + line[1] + ":\n" + dom);
    }
    assertTrue(dom.contains("// &lt;script&gt;alert(1)&lt;/script&gt;"), "the source's text stays text");
  }

  @Test
  void aHostileKernelMessageStaysText() throws Exception {
    String dom = chromium.dumpDom(url("open=stub::hostile|kernel|cpu"), dir);
    assertTrue(dom.contains("data-ready=\"true\""), dom);
    assertTrue(dom.contains("raised: &lt;script&gt;alert(1)&lt;/script&gt;</pre>"), "shown as text in the details:\n" + dom);
    assertEquals(2, count(dom, "<script"), "only the page's own two script elements");
    assertFalse(dom.contains("<script>alert"), dom);
    assertTrue(dom.contains(StubRun.NON_ASCII), "non-ASCII text survives");
  }

  @Test
  void clickingAGeneratedFailureShowsItsInputRerunAndDocLink() throws Exception {
    String dom = chromium.dumpDom(url("open=stub::scale|mutation|cpu"), dir);
    assertTrue(dom.contains("<h2>stub::scale · mutation · cpu (2 results)</h2>"), dom);
    assertTrue(dom.contains("generated, try 7, seed 42"), dom);
    assertTrue(dom.contains("<tr data-key=\"minimal example\"><th>minimal example</th><td><pre>x=float32[1] [1.0], s=2.0"), dom);
    assertTrue(dom.contains("<code class=\"rerun-line\">./opcheck check --spec specs/stub_ops.json --op stub::scale"
        + " --check mutation.undeclared"), dom);
    // no docs location known (no opcheck4j.docsUrl, no clone): the check's summary, named page, no dead link
    assertTrue(dom.contains("<span title=\"opcheck4j's docs/checks/mutation.undeclared.md (-Dopcheck4j.docsUrl=... links it)\">"
        + "about mutation.undeclared</span>: "), dom);
    assertFalse(dom.contains("href=\"docs/checks/"), dom);
  }

  @Test
  void searchAndFiltersHideRowsAndColumns() throws Exception {
    String dom = chromium.dumpDom(url("q=hostile", "device=cpu,(any)", "family=kernel,fake"), dir);
    assertTrue(dom.contains("data-ready=\"true\""), dom);
    assertEquals(5, count(dom, "<tr data-op=\"[^\"]+\" data-kinds=\"[^\"]*\" class=\"hidden\""), "all rows but one hidden");
    assertTrue(dom.contains("<tr data-op=\"stub::hostile\" data-kinds=\"failed skipped errored\">"), dom);
    assertTrue(dom.contains("<td class=\"cell k-skipped never-ran hidden\" data-family=\"fake\" data-device=\"meta\""), "meta column hidden");
    // a family that applied but never ran is its own kind of cell, with the reason on hover
    assertTrue(dom.matches("(?s).*data-device=\"meta\" data-kind=\"skipped\" data-op=\"stub::hostile\""
        + " title=\"never ran: requires kernel.error, which failed\"[^>]*data-coverage=\"never-ran\"[^>]*>never ran<.*"), dom);
    assertTrue(dom.contains("<td class=\"cell k-errored hidden\" data-family=\"determinism\""), "determinism hidden");
    assertTrue(dom.contains("<td class=\"cell k-failed\" data-family=\"kernel\" data-device=\"cpu\""), dom);
    String failedOnly = chromium.dumpDom(url("outcome=crashed"), dir);
    assertEquals(4, count(failedOnly, "<tr data-op=\"[^\"]+\" data-kinds=\"[^\"]*\" class=\"hidden\""),
        "only the crashed and the timed-out op stay");
  }

  @Test
  void aValueMismatchIsDrawnAsAHeatmapWithTheDifferingCellsOutlined(@TempDir Path other) throws Exception {
    Path pictures = new HtmlReportFormat(null).write(StubRun.withPictures(), other);
    String dom = chromium.dumpDom(Chromium.url(pictures, "open=stub::sine|reference|cpu"), other);
    assertTrue(dom.contains("<figcaption>|difference| of output 0 [3, 4]</figcaption><svg class=\"heatmap\""), dom);
    assertTrue(dom.contains("aria-label=\"|difference| of output 0 [3, 4]\" data-rows=\"3\" data-cols=\"4\""
        + " data-group=\"difference of output 0\" data-marked=\"2\""), dom);
    assertEquals(12, count(dom, "<rect x=\"\\d+\" y=\"\\d+\" width=\"\\d+\" height=\"\\d+\" fill=\"[^\"]+\" class=\"cell"));
    assertEquals(2, count(dom, "class=\"cell marked\""), "the two elements beyond tolerance");
    assertTrue(dom.contains("fill=\"rgb(255,0,0)\" class=\"cell marked\"><title>[0, 1]: 0.9 (beyond tolerance)</title>"),
        "the largest difference is full red:\n" + dom);
    assertTrue(dom.contains("fill=\"#1f2328\" class=\"cell\"><title>[1, 3]: not finite</title>"), dom);
    assertTrue(dom.contains("0<span class=\"bar\""), "an unsigned scale from 0");
  }

  @Test
  void aJacobianFailureShowsBothJacobiansAndTheirDifferenceOnOneScale(@TempDir Path other) throws Exception {
    Path pictures = new HtmlReportFormat(null).write(StubRun.withPictures(), other);
    String dom = chromium.dumpDom(Chromium.url(pictures, "open=stub::sine|gradcheck|cpu"), other);
    for (String title : new String[] {"analytical d output 0 / d x", "numerical d output 0 / d x", "analytical − numerical"}) {
      assertTrue(dom.contains("<figcaption>" + title + "</figcaption><svg class=\"heatmap\""), title + ":\n" + dom);
    }
    assertEquals(3, count(dom, "data-group=\"jacobian d output 0 / d x\""));
    // one scale for the three: -6 (the analytical entry of largest magnitude) is full blue in the first,
    // and -3 half blue in the second and third
    assertTrue(dom.contains("fill=\"rgb(0,0,255)\" class=\"cell\"><title>[2, 2]: -6</title>"), dom);
    assertEquals(2, count(dom, "fill=\"rgb\\(128,128,255\\)\" class=\"cell[^\"]*\"><title>\\[2, 2\\]: -3"), dom);
    assertEquals(3, count(dom, "\u22126<span class=\"bar\""), "each says its scale runs from -6 to 6");
    assertEquals(3, count(dom, "class=\"cell marked\""), "the three entries beyond tolerance, in the difference");
  }

  @Test
  void theTimeChartPutsTheSlowestOpFirst(@TempDir Path other) throws Exception {
    Path pictures = new HtmlReportFormat(null).write(StubRun.withPictures(), other);
    String dom = chromium.dumpDom(pictures.toUri().toString(), other);
    assertTrue(dom.contains("<h2>Time per op</h2><svg id=\"time-chart\""), dom);
    // stub::slow (60 s, timed out) first, then stub::crashy (0.8 s)
    assertTrue(dom.matches("(?s).*<g class=\"time-row\" data-op=\"stub::slow\" data-micros=\"60000000\">.*"
        + "<g class=\"time-row\" data-op=\"stub::crashy\" data-micros=\"812000\">.*"), dom);
    assertTrue(dom.contains("<title>stub::sine · gradcheck: 90 ms</title>"), dom);
    Path png = SCREENSHOTS.resolve("opcheck-report-pictures.png");
    chromium.screenshot(Chromium.url(pictures, "open=stub::sine|gradcheck|cpu"), png, 1400, 1800, other);
    assertTrue(java.nio.file.Files.size(png) > 10_000, "a real picture, not an empty one");
  }

  @Test
  void leavesAScreenshotOfTheMatrixWithFailures() throws Exception {
    Path png = SCREENSHOTS.resolve("opcheck-report-stub.png");
    chromium.screenshot(url("open=stub::scale|mutation|cpu"), png, 1400, 1500, dir);
    assertTrue(java.nio.file.Files.size(png) > 10_000, "a real picture, not an empty one");
  }
}
