package dev.opcheck4j.checks.reference;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.checks.gradcheck.JacobianCheck;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.CheckTestHelper;
import dev.opcheck4j.testing.NativeOps;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * reference.grad: value_ops::rippled_sine, whose values are within tolerance of sin but whose derivative
 * is not cos, fails it (and only it: gradcheck passes, its backward being its own forward's derivative);
 * scaled_sine's gradients equal its reference's; where the values already differ (sine, which computes
 * cos) the check says Skipped and leaves the finding to reference.values.
 */
class ReferenceGradTests {
  private static final String SPEC = "values/value_ops.json";
  private static RunReport report;

  @BeforeAll
  static void runValueOps() throws Exception {
    RunRequest request = RunRequest.builder().seed(11L).tries(20).jobs(1).spec(NativeOps.spec(SPEC)).build();
    RunOutcome outcome = Launcher.execute(request, RunListener.NONE);
    assertEquals(List.of(), outcome.inputErrors());
    report = outcome.report();
  }

  private static List<CheckResult> results(String op, String check) {
    return report.results().stream().filter(r -> r.op().equals(op) && r.check().equals(check)).toList();
  }

  @Test
  void theRippledSineFailsOnItsExampleWithBothGradientsDifferences() {
    CheckResult r = results("value_ops::rippled_sine", ReferenceGradCheck.ID).stream()
        .filter(x -> x.outcome() == Outcome.FAILED).findFirst().orElseThrow();
    assertTrue(r.finding().cause() instanceof Cause.ValueMismatch, r.toString());
    assertEquals("the gradients of the spec's reference: torch.sin(x)", r.fact("expected").orElseThrow());
    assertTrue(r.fact("but was").orElseThrow().startsWith("gradient of 'x': "), r.toString());
    double maxAbs = Double.parseDouble(r.fact("max abs error").orElseThrow());
    assertTrue(maxAbs > 1e-4 && maxAbs < 0.1, "the ripple's derivative is at most 1e-2 per element: " + r);
    for (String key : List.of("max rel error", "differing", "first difference", "grad_outputs")) {
      assertTrue(r.fact(key).isPresent(), key + " in " + r);
    }
    // the picture: the example's 3x4 gradient, every element beyond tolerance
    var map = r.finding().heatmaps().get(0);
    assertEquals("|difference| of gradient of 'x' [3, 4]", map.title());
    assertEquals(List.of(3, 4, 12), List.of(map.rows(), map.cols(), map.marked().size()));
  }

  @Test
  void gradcheckPassesTheRippledSineItsBackwardBeingItsOwnForwardsDerivative() {
    List<CheckResult> jacobian = results("value_ops::rippled_sine", JacobianCheck.ID);
    assertFalse(jacobian.isEmpty());
    assertTrue(jacobian.stream().anyMatch(r -> r.outcome() == Outcome.PASSED), jacobian.toString());
    assertTrue(jacobian.stream().noneMatch(r -> r.outcome() == Outcome.FAILED), jacobian.toString());
    List<CheckResult> values = results("value_ops::rippled_sine", ReferenceValuesCheck.ID);
    assertTrue(values.stream().noneMatch(r -> r.outcome() == Outcome.FAILED), "its values are within tolerance");
    assertTrue(values.stream().anyMatch(r -> r.outcome() == Outcome.PASSED && r.example().startsWith("generated")),
        values.toString());
  }

  @Test
  void theGoodOpsGradientsEqualTheirReferencesOnGeneratedInputsToo() {
    List<CheckResult> rs = results("value_ops::scaled_sine", ReferenceGradCheck.ID);
    assertTrue(rs.stream().noneMatch(r -> r.outcome() == Outcome.FAILED || r.outcome() == Outcome.ERRORED), rs.toString());
    assertTrue(rs.stream().anyMatch(r -> r.outcome() == Outcome.PASSED && r.example().startsWith("generated")), rs.toString());
  }

  @Test
  void whereTheValuesAlreadyDifferTheCheckLeavesTheFindingToReferenceValues(@TempDir Path dir) throws Exception {
    // sine computes cos: on a general input its values differ, and so would any gradient
    Path spec = Files.writeString(dir.resolve("sine.json"), "{\"library\": \"" + NativeOps.lib("value_ops") + "\",\n"
        + "\"ops\": [{\"op\": \"value_ops::sine\", \"reference\": \"torch.sin(x)\",\n"
        + "  \"examples\": [{\"args\": [{\"tensor\": [3, 4], \"dtype\": \"float64\", \"requires_grad\": true}]}]}]}\n");
    OpSpec entry = SpecReader.read(spec).ops().get(0);
    Verdict v = CheckTestHelper.evaluate(ReferenceGradCheck.ID, "value_ops", entry);
    assertEquals(Outcome.SKIPPED, v.outcome(), v.toString());
    assertTrue(v.facts().toString().contains("values differ from the reference's on this input"), v.toString());
    assertEquals(Outcome.FAILED, CheckTestHelper.evaluate(ReferenceValuesCheck.ID, "value_ops", entry).outcome());
  }

  @Test
  void inProcessBothWays() throws Exception {
    assertPasses(ReferenceGradCheck.ID, "value_ops", SPEC, "value_ops::scaled_sine");
    Finding f = assertFinds(ReferenceGradCheck.ID, "value_ops", SPEC, "value_ops::rippled_sine", Cause.ValueMismatch.class);
    assertTrue(f.actual().contains("elements differ beyond atol 1.0E-5, rtol 1.0E-5"), f.toString());
  }
}
