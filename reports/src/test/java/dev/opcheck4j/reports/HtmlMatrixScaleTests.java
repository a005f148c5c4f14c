package dev.opcheck4j.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML matrix of a library of 300 ops (results made here, no kernel runs) in headless Chromium:
 * it draws a cell for each op, family and device that ran (its time is the page's to record, never
 * asserted), failing ops come first, the CUDA columns of a machine without a GPU are one
 * column saying why, a cell of passed and skipped results is green, search and filters work, the doc
 * links point to an absolute docs location with the check's summary beside them, and opening a cell
 * far to the right does not scroll the page sideways. Leaves
 * {@code reports/target/screenshots/opcheck-report-300-ops.png}.
 */
class HtmlMatrixScaleTests {
  static final int OPS = 300;
  static final String DOCS = "https://opcheck4j.example.org/docs/checks/";
  static final String NO_CUDA = "no CUDA device in this process (torch.cuda_is_available() is false)";
  static Chromium chromium;
  @TempDir static Path dir;
  static Path page;

  @BeforeAll
  static void writePage() throws Exception {
    chromium = Chromium.required();
    page = new HtmlReportFormat(null, DOCS).write(library(), dir);
  }

  static String op(int i) {
    return String.format("big_ops::op_%03d", i);
  }

  /** Ops failing mutation.undeclared: every 37th, from op_036. */
  static boolean failing(int i) {
    return i % 37 == 36;
  }

  /** 300 ops, each with the checks of a real run on cpu and meta, CUDA skipped everywhere (no GPU). */
  static RunReport library() {
    List<String> ids = List.of("registration.exists", "schema.types", "kernel.error", "mutation.undeclared", "fake.metadata",
        "gradcheck.jacobian", "determinism", "noncontiguous", "torchscript.call");
    RunInfo run = new RunInfo("0.1.0", "2.10.0", "1.5.13", 7L, 30, 2,
        List.of(new RunInfo.DeviceInfo("cpu", true, null), new RunInfo.DeviceInfo("meta", true, null),
            new RunInfo.DeviceInfo("cuda", false, NO_CUDA)),
        ids, List.of(new RunInfo.Input("specs/big_ops.json", "/opt/big/libbig_ops.so", null)),
        Instant.parse("2026-11-23T10:00:00Z"), 60_000, "./opcheck check --spec specs/big_ops.json", null);
    List<CheckInfo> checks = new ArrayList<>();
    for (String id : ids) {
      checks.add(CheckInfo.error(id, CheckInfo.Scope.EXAMPLE, "what " + id + " asserts"));
    }
    List<CheckResult> results = new ArrayList<>();
    for (int i = 0; i < OPS; i++) {
      String op = op(i);
      String ex = "specs/big_ops.json#ops[" + i + "].examples[0]";
      results.add(new CheckResult(op, "registration.exists", "-", "-", Outcome.PASSED, List.of(), 10));
      results.add(new CheckResult(op, "schema.types", "-", "-", Outcome.PASSED, List.of(), 10));
      for (String device : List.of("cpu", "cuda")) {
        boolean cuda = device.equals("cuda");
        for (String id : List.of("kernel.error", "determinism", "noncontiguous", "torchscript.call", "gradcheck.jacobian")) {
          results.add(cuda ? skipped(op, id, device, ex, NO_CUDA) : id.equals("gradcheck.jacobian")
              ? skipped(op, id, device, ex, "no input requires grad in this example")
              : new CheckResult(op, id, device, ex, Outcome.PASSED, List.of(), 100));
        }
        if (cuda) {
          results.add(skipped(op, "mutation.undeclared", device, ex, NO_CUDA));
        } else if (failing(i)) {
          results.add(new CheckResult(op, "mutation.undeclared", device, ex, Outcome.FAILED, List.of(
              new Fact("expected", "argument 'x' unchanged"), new Fact("but was", "1 of 12 elements changed, max |diff| 0.123456789")), 300)
              .withFinding(Finding.of("argument 'x' unchanged", "1 of 12 elements changed", "declare 'Tensor(a!) x'",
                  new Cause.Contract("undeclared mutation", "argument 'x'")), null));
        } else {
          // one example passed, a second one was skipped: not grey, something ran
          results.add(new CheckResult(op, "mutation.undeclared", device, ex, Outcome.PASSED, List.of(), 300));
          results.add(skipped(op, "mutation.undeclared", device, "specs/big_ops.json#ops[" + i + "].examples[1]",
              "the example has no tensor argument"));
        }
      }
      results.add(new CheckResult(op, "fake.metadata", "meta", ex, Outcome.PASSED, List.of(), 50));
      results.add(skipped(op, "fake.metadata", "cuda", ex, NO_CUDA));
    }
    return new RunReport(run, checks, results);
  }

  private static CheckResult skipped(String op, String id, String device, String example, String reason) {
    return new CheckResult(op, id, device, example, Outcome.SKIPPED, List.of(new Fact("reason", reason)), 0);
  }

  static String url(String... settings) {
    return Chromium.url(page, settings);
  }

  static int count(String html, String regex) {
    return Chromium.count(html, regex);
  }

  static List<String> rowOrder(String dom) {
    List<String> ops = new ArrayList<>();
    Matcher m = Pattern.compile("<tr data-op=\"([^\"]+)\"").matcher(dom);
    while (m.find()) {
      ops.add(m.group(1));
    }
    return ops;
  }

  @Test
  void threeHundredOpsDrawWithFailingOpsFirstAndCudaCollapsed() throws Exception {
    String dom = chromium.dumpDom(page.toUri().toString(), dir);
    assertTrue(dom.contains("data-ready=\"true\""), "the page's script did not finish");
    // how long it took is the page's to tell (it records it), never asserted: it is the machine's load.
    // The work its script did is what it drew: as many cells for each op as for the first, none more.
    assertTrue(Pattern.compile("data-load-ms=\"\\d+\" data-render-ms=\"\\d+\"").matcher(dom).find(),
        "the page says how long it took");
    int perOp = count(dom, "<td class=\"cell [^>]*data-op=\"big_ops::op_000\"");
    assertTrue(perOp > 0, "cells of the first op");
    assertEquals(OPS * perOp, count(dom, "<td class=\"cell "), "one cell per op, family and device that ran");

    List<String> rows = rowOrder(dom);
    assertEquals(OPS, rows.size());
    List<String> failingOps = new ArrayList<>();
    for (int i = 0; i < OPS; i++) {
      if (failing(i)) {
        failingOps.add(op(i));
      }
    }
    assertEquals(failingOps, rows.subList(0, failingOps.size()), "failing ops first, in spec order");
    assertEquals(op(0), rows.get(failingOps.size()), "then the others in spec order");
    assertEquals(op(0), rowOrder(chromium.dumpDom(url("order=spec"), dir)).get(0), "spec order on request");

    // cuda, where nothing ran: one narrow column, the reason said once above the table (in the header it
    // wrapped a letter per line), and no cell per family
    assertEquals(0, count(dom, "<td class=\"cell [^\"]*\" data-family=\"[a-z]+\" data-device=\"cuda\""));
    assertTrue(dom.contains("<th rowspan=\"2\" class=\"collapsed\" data-device=\"cuda\" data-collapsed=\"true\" title=\""
        + NO_CUDA + "\">cuda<small>not run</small></th>"), dom.substring(0, 3000));
    assertTrue(dom.contains("<ul class=\"not-run-devices\" id=\"not-run-devices\"><li><b>cuda</b> not run: " + NO_CUDA
        + " (its column counts each op's results skipped for it)</li></ul>"), dom.substring(0, 3000));
    assertEquals(1, count(dom, "not run: " + java.util.regex.Pattern.quote(NO_CUDA)), "the reason once");
    assertEquals(OPS, count(dom, "<td class=\"collapsed\" data-device=\"cuda\""));
    // passed and skipped together: green, with both counts
    assertTrue(dom.contains("<td class=\"cell k-passed\" data-family=\"mutation\" data-device=\"cpu\" data-kind=\"passed\""
        + " data-op=\"big_ops::op_000\" title=\"1 skipped, 1 passed\""), "a cell where something ran is not grey");
    assertTrue(dom.contains("<td class=\"cell k-skipped never-ran\" data-family=\"gradcheck\" data-device=\"cpu\" data-kind=\"skipped\""
        + " data-op=\"big_ops::op_000\""), "grey where nothing ran (and marked never ran, from the coverage)");
  }

  @Test
  void searchAndTheOutcomeFilterWorkOnThreeHundredRows() throws Exception {
    String dom = chromium.dumpDom(url("q=op_123"), dir);
    assertEquals(OPS - 1, count(dom, "<tr data-op=\"[^\"]+\" data-kinds=\"[^\"]*\" class=\"hidden\""), "one row left");
    assertTrue(dom.contains("<tr data-op=\"big_ops::op_123\" data-kinds=\"passed skipped\">"), "and it is op_123's");
    String failed = chromium.dumpDom(url("outcome=failed"), dir);
    List<String> shown = new ArrayList<>();
    Matcher m = Pattern.compile("<tr data-op=\"([^\"]+)\" data-kinds=\"[^\"]*\">").matcher(failed);
    while (m.find()) {
      shown.add(m.group(1));
    }
    assertEquals(List.of(op(36), op(73), op(110), op(147), op(184), op(221), op(258), op(295)), shown);
    String noCpu = chromium.dumpDom(url("device=meta,(any)"), dir);
    assertTrue(noCpu.contains("<td class=\"cell k-passed hidden\" data-family=\"kernel\" data-device=\"cpu\""), "cpu columns hidden");
    assertTrue(noCpu.contains("<td class=\"collapsed hidden\" data-device=\"cuda\""), "the collapsed cuda column too");
  }

  @Test
  void openingACellFarRightShowsItsResultsWithAnAbsoluteDocLinkAndDoesNotScrollSideways() throws Exception {
    String dom = chromium.dumpDom(url("open=" + op(295) + "|torchscript|cpu"), dir);
    assertTrue(dom.contains("<h2>" + op(295) + " · torchscript · cpu (1 result)</h2>"), "the cell opened");
    assertTrue(dom.contains("<a href=\"" + DOCS + "torchscript.call.md\" title=\"what torchscript.call asserts\">"
        + "about torchscript.call</a>: what torchscript.call asserts"), "the link works outside the repository");
    Matcher scroll = Pattern.compile("data-scroll=\"(\\d+),(\\d+)\"").matcher(dom);
    assertTrue(scroll.find());
    assertEquals("0", scroll.group(1), "not scrolled sideways");
    assertFalse(dom.contains("href=\"docs/checks/"), "no link relative to a repository the reader may not have");
  }

  @Test
  void leavesAScreenshotOfTheThreeHundredOpMatrix() throws Exception {
    Path png = HtmlMatrixChromiumTests.SCREENSHOTS.resolve("opcheck-report-300-ops.png");
    // the page as it opens, from the top: headless --screenshot does not paint a page its script
    // scrolled (opening a cell far down left a blank band); scrolling is asserted on the DOM above
    chromium.screenshot(url(), png, 1400, 1100, dir);
    assertTrue(Files.size(png) > 10_000, "a real picture, not an empty one");
  }
}
