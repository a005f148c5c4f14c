package dev.opcheck4j.checks.gradcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
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
 * Second-order gradients (native-ops' second_order_ops.cpp, fixtures/specs/gradients/second_order_ops.json):
 * a straight-through square passes gradcheck and fails gradcheck.gradgrad, as it fails real gradgradcheck;
 * an entry with {@code "double_backward": false} passes only when differentiating its backward raises;
 * an op with two outputs passes gradcheck.undefined-grad, as real gradcheck's check_undefined_grad.
 */
class SecondOrderTests {
  private static final String SPEC = "gradients/second_order_ops.json";
  private static CorpusRun corpus;

  @BeforeAll
  static void run() throws Exception {
    corpus = CorpusRun.of(SPEC, 20);
  }

  @TestFactory
  Stream<DynamicTest> eachOpHasFindingsInExactlyItsMarkedChecks() throws Exception {
    List<String> ops = SpecReader.read(NativeOps.spec(SPEC)).ops().stream().map(o -> o.op()).toList();
    assertEquals(new TreeSet<>(ops), new TreeSet<>(NativeOps.opsIn("second_order_ops.cpp")), "the spec covers every op");
    return corpus.eachOpHasFindingsInExactlyItsMarkedChecks("second_order_ops.cpp", ops);
  }

  @Test
  void aStraightThroughGradientPassesGradcheckAndFailsTheSecondOrderCheck() {
    assertEquals(Outcome.PASSED, corpus.one("second_order_ops::straight_square", JacobianCheck.ID, "cpu").outcome());
    CheckResult r = corpus.one("second_order_ops::straight_square", GradGradCheck.ID, "cpu");
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    assertTrue(r.fact("expected").orElseThrow().startsWith("the second derivative autograd gives (the Jacobian of the"
        + " backward) matches finite differences of the backward within atol "), r.toString());
    String butWas = r.fact("but was").orElseThrow();
    // autograd's second derivative is 0 (a detached constant), finite differences of the backward 2v
    assertTrue(butWas.startsWith("the second derivative of grad x with respect to 'x' is zero where finite"
        + " differences of the backward say it is not (d grad x["), butWas);
    assertTrue(butWas.endsWith("the second derivative is silently zero"), butWas);
    assertEquals("fast, then slow to locate the error", r.fact("mode").orElseThrow());
    assertTrue(r.finding().cause() instanceof Cause.ValueMismatch, r.toString());
    assertTrue(!r.finding().heatmaps().isEmpty(), "the slow re-run draws the Jacobians");
    assertEquals(Outcome.PASSED, corpus.one("second_order_ops::square", GradGradCheck.ID, "cpu").outcome());
  }

  @Test
  void theSecondOrderCheckAlsoRunsOnATenthOfTheGeneratedInputsAsGradcheckDoes() {
    for (String check : List.of(JacobianCheck.ID, GradGradCheck.ID)) {
      CheckResult r = corpus.of("second_order_ops::square").filter(x -> x.check().equals(check) && "cpu".equals(x.device())
          && x.example().startsWith("generated")).findFirst().orElseThrow(() -> new AssertionError("no generated " + check));
      assertEquals(Outcome.PASSED, r.outcome(), r.toString());
      // 20 tries: a tenth, at least 3
      assertEquals("3", r.fact(Fact.INPUTS_CHECKED).orElseThrow(), r.toString());
    }
  }

  @Test
  void aDeclaredMissingSecondDerivativeMustRaiseNotReturnZeros() {
    CheckResult good = corpus.one("second_order_ops::hard_gate", GradGradCheck.ID, "cpu");
    assertEquals(Outcome.PASSED, good.outcome(), good.toString());
    assertEquals("derivative for aten::hardsigmoid_backward is not implemented", good.fact("raised").orElseThrow());
    CheckResult bad = corpus.one("second_order_ops::flat_claim", GradGradCheck.ID, "cpu");
    assertEquals(Outcome.FAILED, bad.outcome(), bad.toString());
    assertEquals("differentiating the backward raises: the entry declares no second derivative"
        + " (\"double_backward\": false)", bad.fact("expected").orElseThrow());
    assertTrue(bad.fact("but was").orElseThrow().startsWith("differentiating the backward returned second derivatives"),
        bad.toString());
    assertTrue(bad.finding().cause() instanceof Cause.Contract, bad.toString());
  }

  @Test
  void aDeclaredDtypeWhoseBackwardRaisesFailsNamingTheDtypeAndTheError() throws Exception {
    CheckResult bad = corpus.one("second_order_ops::bessel_i1", "dtype.declared", "cpu");
    assertEquals(Outcome.FAILED, bad.outcome(), bad.toString());
    assertEquals("it raised on declared float16 backward: \"\"i1_backward\" not implemented for 'Half'\"; bfloat16"
        + " backward: \"\"i1_backward\" not implemented for 'BFloat16'\"", bad.fact("but was").orElseThrow());
    assertEquals("float32, float64, float16, bfloat16", bad.fact("forward ran").orElseThrow(), bad.toString());
    assertEquals("float32, float64", bad.fact("backward ran").orElseThrow(), bad.toString());
    CheckResult good = corpus.one("second_order_ops::bessel_i0", "dtype.declared", "cpu");
    assertEquals(Outcome.PASSED, good.outcome(), good.toString());
    assertEquals("float32, float64, float16, bfloat16", good.fact("backward ran").orElseThrow(), good.toString());
    // what PyTorch 2.14.1 said, by OpInfo's test_dtypes rule applied by hand (real_gradgrad.py)
    JsonNode real = new ObjectMapper().readTree(NativeOps.spec("gradients/real-gradgradcheck.json").toFile()).get("ops");
    assertTrue(real.get("second_order_ops::bessel_i1").get("real gradgradcheck").get(0).get("test_dtypes float16 backward")
        .asText().contains("\"i1_backward\" not implemented for 'Half'"));
    assertEquals("SUCCESS", real.get("second_order_ops::bessel_i0").get("real gradgradcheck").get(0)
        .get("test_dtypes float16 backward").asText());
  }

  @Test
  void undefinedGradOutputsAreCheckedOnMultiOutputOpsAndSaySoElsewhere() throws Exception {
    CheckResult pair = corpus.one("second_order_ops::split_pair", UndefinedGradCheck.ID, "cpu");
    assertEquals(Outcome.PASSED, pair.outcome(), pair.toString());
    // every grad_output undefined at once too: the companion library gives gradcheck's UndefinedGrad node
    assertEquals("2 require grad; every grad_output undefined at once, then each in turn given an undefined grad_output,"
        + " the others zero", pair.fact("outputs").orElseThrow());
    assertTrue(pair.fact("note").isEmpty(), pair.toString());
    JsonNode real = new ObjectMapper().readTree(NativeOps.spec("gradients/real-gradgradcheck.json").toFile())
        .get("ops").get("second_order_ops::split_pair").get("real gradgradcheck").get(0);
    assertEquals("SUCCESS", real.get("gradcheck check_undefined_grad").asText());
    assertEquals("grads [0.0]", real.get("output 1 undefined, others zero").asText());
    CheckResult single = corpus.one("second_order_ops::square", UndefinedGradCheck.ID, "cpu");
    assertEquals(Outcome.SKIPPED, single.outcome(), single.toString());
    assertEquals("does not apply: the op returns one tensor: undefined gradients are checked on ops with several outputs",
        single.reason());
  }
}
