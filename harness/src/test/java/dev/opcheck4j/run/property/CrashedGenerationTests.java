package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Generated inputs after a crash (issue 28 §4, §5), on crash_ops' real kernels at seed 7, 30 tries:
 * a crash on one class of inputs leaves the op's other checks their tries, and a value finding never
 * shrinks into an input that kills the worker.
 */
class CrashedGenerationTests {
  private static RunReport report;

  @BeforeAll
  static void run() throws Exception {
    RunRequest request = RunRequest.builder().seed(7L).tries(30).jobs(2).spec(NativeOps.spec("crash/crash_ops.json"))
        .ops(List.of("crash_ops::empty_crash_meta_swap", "crash_ops::wrong_large_dies_small"))
        .devices(List.of(Device.CPU, Device.META)).build();
    report = Launcher.execute(request, RunListener.NONE).report();
  }

  private static List<CheckResult> failed(String op) {
    return report.results().stream().filter(r -> r.op().equals(op) && r.outcome() == Outcome.FAILED).toList();
  }

  @Test
  void eachOpFailsExactlyItsMarkedChecks() throws Exception {
    Map<String, Set<String>> marked = NativeOps.expectations("crash_ops.cpp");
    for (String op : List.of("crash_ops::empty_crash_meta_swap", "crash_ops::wrong_large_dies_small")) {
      assertEquals(new TreeSet<>(marked.get(op)), failed(op).stream().map(CheckResult::check)
          .collect(Collectors.toCollection(TreeSet::new)), op + ": " + failed(op));
    }
  }

  @Test
  void aCrashOnEmptyInputsDoesNotHideTheMetaKernelsWrongShapeOnNonSquareOnes() {
    List<CheckResult> f = failed("crash_ops::empty_crash_meta_swap");
    CheckResult crash = f.stream().filter(r -> r.check().equals("kernel.crash")).findFirst().orElseThrow();
    assertTrue(crash.fact("minimal example").orElseThrow().startsWith("x=float32[0, 0]"), crash.toString());
    CheckResult meta = f.stream().filter(r -> r.check().equals("fake.metadata")).findFirst().orElseThrow();
    assertTrue(meta.example().startsWith("generated from"), meta.toString());
    assertTrue(meta.fact("but was").orElseThrow().matches("output 0 sizes \\[(\\d+), (\\d+)\\] on meta, \\[\\2, \\1\\] real"),
        meta.toString());
  }

  /**
   * Issue 43: the crash on empty inputs is learned as a class after its first death, and the later tries
   * route around it, so the op never uses up its deaths and every other check gets every try that ran.
   */
  @Test
  void theTriesAfterTheCrashRouteAroundEmptyInputsAndEveryOtherCheckGetsItsTries() {
    String op = "crash_ops::empty_crash_meta_swap";
    assertEquals(1, failed(op).stream().filter(r -> r.check().equals("kernel.crash")).count());
    CheckResult domain = report.results().stream()
        .filter(r -> r.op().equals(op) && r.check().equals("generate.domain") && r.device().equals("cpu"))
        .findFirst().orElseThrow();
    assertTrue(domain.facts().stream().anyMatch(f -> f.value().matches(
        "steered \\d+ tries away from inputs where x has no elements \\(what the kernel.crash on x=float32\\[0, 0\\].*")),
        domain.toString());
    for (String check : List.of("mutation.undeclared", "determinism", "alias.undeclared")) {
      CheckResult r = report.results().stream().filter(x -> x.op().equals(op) && x.check().equals(check)
          && x.device().equals("cpu") && x.example().startsWith("generated")).findFirst().orElseThrow();
      assertEquals(Outcome.PASSED, r.outcome(), r.toString());
      // 30 tries, one of which killed the worker; determinism's cap is 25 (issue 55), which it reaches
      assertEquals(check.equals("determinism") ? "25" : "29", r.fact(Fact.INPUTS_CHECKED).orElseThrow(), r.toString());
    }
  }

  /**
   * Once a crash class is learned, the shrinks of the op's other findings (fake.metadata's, reference.values')
   * skip its candidates without calling the kernel: each call would be one more dead worker. A kernel that
   * dies on a single element teaches the narrowest class, its sizes.
   */
  @Test
  void theOtherFindingsShrinksRunNoInputOfALearnedCrashClass() {
    Map<String, String> classes = Map.of("crash_ops::empty_crash_meta_swap", "x has no elements",
        "crash_ops::wrong_large_dies_small", "x has sizes \\[1, 1\\]");
    for (Map.Entry<String, String> c : classes.entrySet()) {
      CheckResult domain = report.results().stream().filter(r -> r.op().equals(c.getKey())
          && r.check().equals("generate.domain") && r.device().equals("cpu")).findFirst().orElseThrow();
      assertTrue(domain.facts().stream().anyMatch(f -> f.value().matches("steered \\d+ tries? away from inputs where "
          + c.getValue() + " .*; \\d+ candidates of other findings' shrinks in it not run")), domain.toString());
    }
  }

  @Test
  void theValueFindingsMinimalExampleIsNotTheCrashInput() {
    List<CheckResult> f = failed("crash_ops::wrong_large_dies_small");
    CheckResult value = f.stream().filter(r -> r.check().equals("reference.values")).findFirst().orElseThrow();
    CheckResult crash = f.stream().filter(r -> r.check().equals("kernel.crash")).findFirst().orElseThrow();
    // 1x2 is the smallest input with the wrong value; 1x1, smaller, kills the worker
    assertTrue(value.fact("minimal example").orElseThrow().matches("x=float(32|64)\\[(1, 2|2, 1)\\]  \\(shrunk in \\d+ steps\\)"),
        value.toString());
    assertTrue(crash.fact("minimal example").orElseThrow().matches("x=float(32|64)\\[1, 1\\]  \\(shrunk in \\d+ steps\\)"),
        crash.toString());
  }
}
