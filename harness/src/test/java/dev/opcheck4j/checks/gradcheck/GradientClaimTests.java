package dev.opcheck4j.checks.gradcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.checks.autograd.DifferentiableCheck;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.CorpusRun;
import dev.opcheck4j.testing.NativeOps;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Gradients a spec asks for are a claim (native-ops' gradient_ops.cpp, fixtures/specs/gradients): an
 * example input with {@code "requires_grad": true} whose gradient stops, or is silently zero, fails
 * gradcheck.jacobian, as torch.autograd.gradcheck fails it; an op whose inputs only the harness's probe
 * marked keeps the autograd.differentiable warning. Each op has findings in exactly the checks its
 * {@code // EXPECT:} marker lists, and nothing errors.
 */
class GradientClaimTests {
  private static final String SPEC = "gradients/gradient_ops.json";
  private static CorpusRun corpus;
  private static RunReport report;

  @BeforeAll
  static void run() throws Exception {
    corpus = CorpusRun.of(SPEC, 20);
    report = corpus.report();
  }

  @TestFactory
  Stream<DynamicTest> eachOpHasFindingsInExactlyItsMarkedChecks() throws Exception {
    List<String> ops = SpecReader.read(NativeOps.spec(SPEC)).ops().stream().map(o -> o.op()).toList();
    assertEquals(new TreeSet<>(ops), new TreeSet<>(NativeOps.opsIn("gradient_ops.cpp")), "the spec covers every op");
    return corpus.eachOpHasFindingsInExactlyItsMarkedChecks("gradient_ops.cpp", ops);
  }

  @Test
  void aRequestedGradientThatStopsFailsGradcheckNotAWarning() {
    for (String op : List.of("gradient_ops::stops", "gradient_ops::cut_graph")) {
      CheckResult r = corpus.one(op, JacobianCheck.ID, "cpu");
      assertEquals(Outcome.FAILED, r.outcome(), r.toString());
      assertEquals("gradients flow back to 'x', as the example asks (\"requires_grad\": true)",
          r.fact("expected").orElseThrow());
      assertTrue(r.fact("but was").orElseThrow().startsWith("output 0 does not require grad, yet changes with 'x':"
          + " the analytical gradient is missing where the numerical one is not zero"), r.toString());
      assertTrue(r.finding().cause() instanceof Cause.ValueMismatch, r.toString());
      assertEquals("0 backward", r.fact("calls").orElseThrow().replaceAll("^\\d+ forward, ", ""), r.toString());
    }
    // the op with backend kernels only is no longer a warning: the spec's claim is checked instead
    CheckResult stops = corpus.one("gradient_ops::stops", DifferentiableCheck.ID, "cpu");
    assertEquals(Outcome.SKIPPED, stops.outcome(), stops.toString());
    assertTrue(stops.reason().startsWith("the spec asks for gradients (x in gradient_ops.json#ops[0].examples[0]"
        + " requires grad): a claim gradcheck.jacobian holds the op to"), stops.reason());
    // the composite that detaches its input registered autograd: the probe passes it, gradcheck does not
    assertEquals(Outcome.PASSED, corpus.one("gradient_ops::cut_graph", DifferentiableCheck.ID, "cpu").outcome());
  }

  @Test
  void aSilentlyZeroGradientFailsWithPytorchsReason() {
    CheckResult r = corpus.one("gradient_ops::silently_zero", JacobianCheck.ID, "cpu");
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    String butWas = r.fact("but was").orElseThrow();
    assertTrue(butWas.startsWith("the analytical gradient of output 0 with respect to 'x' is zero where the numerical"
        + " one is not (d output 0["), butWas);
    assertTrue(butWas.contains(": analytical 0.0, numerical 2"), butWas);
    assertTrue(butWas.endsWith("the gradient is silently zero"), butWas);
    assertEquals("fast, then slow to locate the error", r.fact("mode").orElseThrow());
  }

  @Test
  void declaredNonDifferentiableMeansTheNumericalGradientIsZero() {
    CheckResult bad = corpus.one("gradient_ops::declared_flat", JacobianCheck.ID, "cpu");
    assertEquals(Outcome.FAILED, bad.outcome(), bad.toString());
    assertTrue(bad.fact("expected").orElseThrow().startsWith("a zero numerical gradient: the spec declares the op"
        + " non-differentiable"), bad.toString());
    assertTrue(bad.fact("hint").orElseThrow().contains("drop \"requires_grad\" from the example"), bad.toString());
    CheckResult good = corpus.one("gradient_ops::floor_flat", JacobianCheck.ID, "cpu");
    assertEquals(Outcome.PASSED, good.outcome(), good.toString());
    assertTrue(good.fact("note").orElseThrow().startsWith("no output requires grad, and none changes with 'x'"),
        good.toString());
    // on generated inputs too, which keep the example's requires_grad
    assertTrue(corpus.of("gradient_ops::floor_flat").anyMatch(r -> r.check().equals(JacobianCheck.ID)
        && r.example().startsWith("generated") && r.outcome() == Outcome.PASSED), "generated inputs were checked");
  }

  @Test
  void anOpTheHarnessProbedOnItsOwnStillOnlyWarns() {
    for (String device : List.of("cpu", "meta")) {
      CheckResult w = corpus.one("gradient_ops::probed", DifferentiableCheck.ID, device);
      assertEquals(Outcome.WARNING, w.outcome(), w.toString());
      assertTrue(w.fact("but was").orElseThrow().startsWith("gradients stop at this op"), w.toString());
    }
    CheckResult g = corpus.one("gradient_ops::probed", JacobianCheck.ID, "cpu");
    assertEquals(Outcome.SKIPPED, g.outcome(), g.toString());
    assertTrue(g.reason().contains("gradients stop at it (see autograd.differentiable)"), g.reason());
    assertFalse(corpus.of("gradient_ops::probed").anyMatch(r -> r.outcome() == Outcome.FAILED));
  }

  @Test
  void aNonContiguousExampleOfAnOpWithACustomBackwardIsAFindingNotAHarnessError() {
    // raw_scale's second example is transposed: gradcheck's own perturbation used view(-1) on it
    CheckResult r = corpus.of("gradient_ops::raw_scale").filter(x -> x.check().equals(JacobianCheck.ID)
        && x.example().equals("gradient_ops.json#ops[8].examples[1]")).findFirst().orElseThrow();
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    assertTrue(r.fact("but was").orElseThrow().matches("d output 0\\[.*\\] / d x\\[.*\\]: analytical \\S+, numerical \\S+"),
        r.toString());
    assertNotEquals(Outcome.FAILED, corpus.of("gradient_ops::raw_scale").filter(x -> x.check().equals(JacobianCheck.ID)
        && x.example().equals("gradient_ops.json#ops[8].examples[0]")).findFirst().orElseThrow().outcome(),
        "contiguous, the op is right");
  }
}
