package dev.opcheck4j.checks.autograd;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.Severity;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.CheckTestHelper;
import dev.opcheck4j.testing.NativeOps;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The autograd checks on their own, in this process. On an op with backend kernels only, PyTorch's
 * rule splits in two: autograd recorded inside a backend kernel fails {@code autograd.registration}
 * (opcheck fails it too); gradients that merely stop are a warning of {@code autograd.differentiable}.
 */
class AutogradChecksTests {
  @Test
  void registeredAutogradPasses() throws Exception {
    assertPasses("autograd.registration", "good_ops", "good_ops.json", "good_ops::scaled_square");
    assertPasses("autograd.differentiable", "good_ops", "good_ops.json", "good_ops::scaled_square");
  }

  @Test
  void autogradRecordedInABackendKernelFailsAsOpcheckDoes() throws Exception {
    Finding f = assertFinds("autograd.registration", "bad_ops", "bad/bad_ops.json", "bad_ops::aten_in_cpu",
        Cause.Contract.class);
    assertTrue(f.actual().contains("autograd registered at a backend key"), f.toString());
  }

  @Test
  void gradientsThatStopAreAWarningNotAFailure() throws Exception {
    // opcheck passes an op whose gradients stop, so its own rule passes here
    assertPasses("autograd.registration", "bad_ops", "bad/bad_ops.json", "bad_ops::grad_stops");
    Finding f = assertFinds("autograd.differentiable", "bad_ops", "bad/bad_ops.json", "bad_ops::grad_stops",
        Cause.Contract.class);
    assertTrue(f.actual().startsWith("gradients stop at this op"), f.toString());
    assertTrue(f.hint().contains("\"differentiable\": false"), f.toString());
    // a finding of a warning check is a warning, by the check's severity
    assertEquals(Severity.WARNING, BuiltinChecks.byId("autograd.differentiable").orElseThrow().info().severity());
    assertEquals(Severity.ERROR, BuiltinChecks.byId("autograd.registration").orElseThrow().info().severity());
  }

  @Test
  void theProbeMakesInputsRequireGradEvenWhenTheExampleDoesNot() throws Exception {
    // bad_ops.json gives grad_stops an example without requires_grad: the probe marks its float input
    OpSpec entry = SpecReader.read(NativeOps.spec("bad/bad_ops.json")).ops().stream()
        .filter(o -> o.op().equals("bad_ops::grad_stops")).findFirst().orElseThrow();
    Verdict v = CheckTestHelper.evaluate("autograd.differentiable", "bad_ops", entry.synthesized(
        List.of(new Example("plain", List.of(tensor("float32")),
            Map.of())), ""));
    assertEquals(Outcome.FAILED, v.outcome(), v.facts().toString());
  }

  @Test
  void anOpWithNoFloatingPointInputIsSkippedWithTheReason() throws Exception {
    OpSpec entry = OpSpec.bare("bad_ops::grad_stops").synthesized(List.of(
        new Example("ints", List.of(tensor("int64")), Map.of())), "");
    Verdict v = CheckTestHelper.evaluate("autograd.registration", "bad_ops", entry);
    assertEquals(Outcome.SKIPPED, v.outcome(), v.facts().toString());
    assertTrue(v.facts().get(0).value().contains("no floating-point tensor input"), v.facts().toString());
  }

  @Test
  void declaringTheOpNonDifferentiableSilencesTheWarning() throws Exception {
    OpSpec given = SpecReader.read(NativeOps.spec("bad/bad_ops.json")).ops().stream()
        .filter(o -> o.op().equals("bad_ops::grad_stops")).findFirst().orElseThrow();
    OpSpec declared = new OpSpec(given.op(), given.devices(), given.skips(), given.tolerance(), given.examples(),
        given.ref(), given.gradcheck(), given.vary(), given.domain(), given.synthesis(), given.timeout(), given.require(), false);
    Verdict v = CheckTestHelper.evaluate("autograd.differentiable", "bad_ops", declared);
    assertEquals(Outcome.SKIPPED, v.outcome(), v.facts().toString());
    assertEquals("the spec declares the op non-differentiable (\"differentiable\": false)", v.facts().get(0).value());
    // opcheck's rule still applies to a declared op
    assertEquals(Outcome.PASSED, CheckTestHelper.evaluate("autograd.registration", "bad_ops", declared).outcome());
  }

  private static SpecValue tensor(String dtype) {
    return new SpecValue(Map.of(
        "tensor", new SpecValue(List.of(new SpecValue(3L, "t")), "t"),
        "dtype", new SpecValue(dtype, "t")), "t");
  }
}
