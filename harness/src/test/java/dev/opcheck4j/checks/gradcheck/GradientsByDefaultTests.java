package dev.opcheck4j.checks.gradcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.testing.NativeOps;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A run with no spec checks gradients: every op of the ordinary corpus that can carry gradients (a
 * kernel at an Autograd key or CompositeImplicitAutograd) has gradcheck results passed or failed on
 * the cpu, never skipped; the ops with backend kernels only get the autograd probe instead.
 */
class GradientsByDefaultTests {
  private static RunReport report;
  private static LibraryInfo library;

  @BeforeAll
  static void runWithoutASpec() throws Exception {
    library = Launcher.describe(NativeOps.lib("ordinary_ops"));
    report = Launcher.execute(RunRequest.builder().library(NativeOps.lib("ordinary_ops")).seed(7L).tries(5).jobs(1)
        .checks(List.of("autograd", "gradcheck", "generate.examples", "kernel.error")).build(), RunListener.NONE).report();
  }

  private static Set<String> gradientOps() {
    return library.ops().stream().filter(o -> o.dispatchKeys().stream()
        .anyMatch(k -> k.startsWith("Autograd") || k.equals("CompositeImplicitAutograd")))
        .map(LibraryInfo.Op::name).collect(Collectors.toSet());
  }

  private static List<CheckResult> results(String op, String check) {
    return report.results().stream().filter(r -> r.op().equals(op) && r.check().equals(check)
        && r.device().equals("cpu")).toList();
  }

  @Test
  void gradcheckRunsOnEveryOpThatCarriesGradients() {
    assertEquals(Set.of("ordinary::softplus", "ordinary::linear"), gradientOps());
    for (String op : gradientOps()) {
      for (String check : List.of(GradOutputCheck.ID, JacobianCheck.ID, "autograd.registration",
          "autograd.differentiable")) {
        List<CheckResult> rs = results(op, check);
        assertFalse(rs.isEmpty(), op + " " + check);
        rs.forEach(r -> assertTrue(r.outcome() == Outcome.PASSED || r.outcome() == Outcome.FAILED, r.toString()));
      }
      assertTrue(results(op, JacobianCheck.ID).stream().anyMatch(r -> r.example().startsWith("generated")),
          "generated inputs keep requires_grad: " + op);
      List<CheckResult> meta = report.results().stream()
          .filter(r -> r.op().equals(op) && r.check().equals("autograd.meta")).toList();
      meta.forEach(r -> assertEquals(Outcome.PASSED, r.outcome(), r.toString()));
    }
  }

  @Test
  void anOpWithBackendKernelsOnlyGetsOneProbePerDeviceAndAWarning() {
    List<CheckResult> reg = report.results().stream()
        .filter(r -> r.op().equals("ordinary::scale") && r.check().equals("autograd.registration")).toList();
    assertEquals(List.of("cpu", "meta", "cuda"), reg.stream().map(CheckResult::device).toList());
    assertEquals(Outcome.PASSED, results("ordinary::scale", "autograd.registration").get(0).outcome(),
        "opcheck passes it, so its rule does");
    CheckResult warned = results("ordinary::scale", "autograd.differentiable").get(0);
    assertEquals(Outcome.WARNING, warned.outcome(), warned.toString());
    assertTrue(warned.fact("but was").orElseThrow().startsWith("gradients stop at this op"), warned.toString());
    // the op's own examples carry no gradients it has no formula for
    assertEquals(Outcome.SKIPPED, results("ordinary::scale", JacobianCheck.ID).get(0).outcome());
    assertEquals(0, report.results().stream().filter(r -> r.outcome() == Outcome.FAILED || r.outcome() == Outcome.ERRORED)
        .count(), report.results().toString());
  }
}
