package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.ExampleRef;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunReport;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fold of results into coverage, as the run's listener hears them. */
class CoverageFoldTests {
  private static CheckResult result(String op, String check, String device, String example, Outcome o, String reason) {
    return new CheckResult(op, check, device, example, o, reason == null ? List.of() : List.of(Fact.of("reason", reason)), 0);
  }

  private static final String NO_GRAD = "no input requires grad in this example";

  @Test
  void countsExamplesAndGeneratedInputsAndSaysWhyAFamilyNeverRan() {
    Coverage.Fold fold = new Coverage.Fold(30);
    RunListener run = RunListener.both(RunListener.NONE, fold);
    run.result(result("ns::a", "kernel.error", "cpu", "s.json#ops[0].examples[0]", Outcome.PASSED, null));
    run.result(result("ns::a", "kernel.error", "cpu", "s.json#ops[0].examples[1]", Outcome.FAILED, null));
    run.result(result("ns::a", "mutation.undeclared", "cpu", "s.json#ops[0].examples[0]", Outcome.PASSED, null)
        .withExample(new ExampleRef(null, true, null, 7L, "30 tries from 2 examples")));
    run.result(result("ns::a", "gradcheck.jacobian", "cpu", "s.json#ops[0].examples[0]", Outcome.SKIPPED, NO_GRAD));
    run.result(result("ns::a", "gradcheck.grad-output", "cpu", "s.json#ops[0].examples[0]", Outcome.SKIPPED, NO_GRAD));
    run.result(result("ns::a", "gradcheck.jacobian", "cpu", "s.json#ops[0].examples[1]", Outcome.SKIPPED, "other"));
    run.result(result("ns::a", "determinism.repeat", "cpu", "s.json#ops[0].examples[0]", Outcome.SKIPPED,
        Coverage.SPEC_SKIP + "uses atomics"));
    run.result(result("ns::a", "variant.agree", "cpu", "s.json#ops[0].examples[0]", Outcome.SKIPPED,
        Coverage.NOT_APPLICABLE + "not named like a variant"));
    run.result(result("ns::b", "gradcheck.jacobian", "cpu", "s.json#ops[1].examples[0]", Outcome.PASSED, null));
    run.result(result("ns::b", "schema.types", CheckResult.NONE, CheckResult.NONE, Outcome.PASSED, null));
    run.result(result("lib", "registration.dangling", CheckResult.NONE, CheckResult.NONE, Outcome.PASSED, null)
        .aboutLibrary("lib.so"));
    Coverage c = fold.coverage();

    assertEquals(List.of("ns::a kernel cpu 2 0 null false", "ns::a mutation cpu 0 30 null false",
        "ns::a gradcheck cpu 0 0 " + NO_GRAD + " false", "ns::a determinism cpu 0 0 skipped by the spec: uses atomics true",
        "ns::a variant cpu 0 0 does not apply: not named like a variant true", "ns::b gradcheck cpu 1 0 null false", "ns::b schema - 0 0 null false"),
        c.entries().stream().map(e -> e.op() + " " + e.family() + " " + e.deviceLabel() + " " + e.examples() + " "
            + e.generated() + " " + e.reason() + " " + e.bySpec()).toList());
    assertEquals("0 examples + 30 generated", c.entries().get(1).describe());
    assertEquals("ran (needs no input)", c.entries().get(6).describe());
    // a family the spec skipped, or one that does not apply to the op, is by design, not a gap; gradcheck never ran on one of its two ops
    List<Coverage.Gap> gaps = c.gaps();
    assertEquals(1, gaps.size());
    assertEquals(new Coverage.Gap("gradcheck", List.of("ns::a"), 2, NO_GRAD), gaps.get(0));
  }

  /**
   * Issue 45: in a run on several runtimes a family counts as never run on an op only where it ran on none of
   * them, and says which runtime gave which reason; one that one runtime alone never ran is that runtime's gap.
   */
  @Test
  void onSeveralRuntimesAFamilyNeverRanWhereItRanOnNoneAndARuntimesOwnGapNamesIt() {
    String refused = "needs libtorch \u2265 2.13: uses torch_from_blob (2.11)";
    Coverage.Fold fold = new Coverage.Fold(0);
    // refused on 2.10; on 2.13 by design (the spec says it is not differentiable): no gap, as on 2.13 alone
    fold.result(result("t::doubled", "gradcheck.jacobian", "cpu", "e0", Outcome.SKIPPED, refused).onRuntime("2.10.0"));
    fold.result(result("t::doubled", "gradcheck.jacobian", "cpu", "e0", Outcome.SKIPPED, Coverage.SPEC_SKIP + "not differentiable")
        .onRuntime("2.13.0"));
    // refused on 2.10, ran on 2.13: not never run, but a gap of 2.10's
    fold.result(result("t::doubled", "fake.metadata", "cpu", "e0", Outcome.SKIPPED, refused).onRuntime("2.10.0"));
    fold.result(result("t::doubled", "fake.metadata", "cpu", "e0", Outcome.PASSED, null).onRuntime("2.13.0"));
    // never ran on either: for a reason of each runtime's, and for one reason on both
    fold.result(result("d::scale", "gradcheck.jacobian", "cpu", "e0", Outcome.SKIPPED, NO_GRAD).onRuntime("2.10.0"));
    fold.result(result("d::scale", "gradcheck.jacobian", "cpu", "e0", Outcome.SKIPPED, "other").onRuntime("2.13.0"));
    fold.result(result("d::steady", "gradcheck.jacobian", "cpu", "e0", Outcome.SKIPPED, NO_GRAD).onRuntime("2.10.0"));
    fold.result(result("d::steady", "gradcheck.jacobian", "cpu", "e0", Outcome.SKIPPED, NO_GRAD).onRuntime("2.13.0"));
    Coverage c = fold.coverage();
    assertEquals(List.of("2.10.0", "2.13.0"), c.of("t::doubled").stream().filter(e -> e.family().equals("fake"))
        .map(Coverage.Entry::runtime).toList(), "an entry per runtime");
    java.util.Map<String, String> gradcheck = new java.util.LinkedHashMap<>();
    gradcheck.put("d::scale", "on 2.10.0: " + NO_GRAD + "; on 2.13.0: other");
    gradcheck.put("d::steady", NO_GRAD);
    assertEquals(List.of(
        new Coverage.Gap("gradcheck", List.of("d::scale", "d::steady"), 3, "on 2.10.0: " + NO_GRAD + "; on 2.13.0: other", null,
            gradcheck),
        new Coverage.Gap("fake", List.of("t::doubled"), 1, refused, "2.10.0", java.util.Map.of("t::doubled", refused))),
        c.gaps());
  }

  @Test
  void aFamilyThatNeverRanIsExplainedWhereItWasExpectedToRunNotByAnAbsentDevice() {
    Coverage.Fold fold = new Coverage.Fold(30);
    // reference.values' own unit killed the worker on cpu: the unit has no result of its own, only kernel.crash's
    fold.result(result("ns::a", "kernel.error", "cpu", "s.json#ops[0].examples[0]", Outcome.PASSED, null));
    fold.result(result("ns::a", "kernel.crash", "cpu", "s.json#ops[0].examples[0]", Outcome.FAILED, null)
        .withFinding(dev.opcheck4j.api.Finding.of("the process survives", "SIGSEGV", "-",
            new dev.opcheck4j.api.Cause.Crash("SIGSEGV")), new dev.opcheck4j.api.Repro("--spec s.json", "ns::a",
            "reference.values", "cpu", 7L, 30, "s.json#ops[0].examples[0]", null, true)));
    fold.result(result("ns::a", "reference.values", "cuda", "s.json#ops[0].examples[0]", Outcome.SKIPPED,
        Coverage.NO_CUDA + " (torch.cuda_is_available() is false)"));
    // another op: skipped on cuda first (its devices listed cuda first), and on cpu for a reason of its own
    fold.result(result("ns::b", "reference.values", "cuda", "s.json#ops[1].examples[0]", Outcome.SKIPPED,
        Coverage.NO_CUDA + " (torch.cuda_is_available() is false)"));
    fold.result(result("ns::b", "reference.values", "cpu", "s.json#ops[1].examples[0]", Outcome.SKIPPED,
        "requires kernel.error, which failed"));
    Coverage c = fold.coverage();
    Coverage.Entry cpu = c.of("ns::a").stream().filter(e -> e.family().equals("reference") && "cpu".equals(e.device()))
        .findFirst().orElseThrow(() -> new AssertionError(c.entries().toString()));
    assertFalse(cpu.ran());
    assertEquals("reference.values on cpu ended in kernel.crash", cpu.reason());
    List<Coverage.Gap> gaps = c.gaps();
    assertEquals(List.of(new Coverage.Gap("reference", List.of("ns::a", "ns::b"), 2,
        "reference.values on cpu ended in kernel.crash", null, java.util.Map.of("ns::a", "reference.values on cpu ended in kernel.crash",
            "ns::b", "requires kernel.error, which failed"))), gaps);
    assertEquals("requires kernel.error, which failed", new Coverage(c.of("ns::b")).gaps().get(0).reason());
    // a device this process lacks still explains a family expected nowhere else
    Coverage.Fold cudaOnly = new Coverage.Fold(30);
    cudaOnly.result(result("ns::c", "reference.values", "cuda", "e", Outcome.SKIPPED, Coverage.NO_CUDA));
    assertEquals(Coverage.NO_CUDA, cudaOnly.coverage().gaps().get(0).reason());
  }

  @Test
  void aReportFoldsItsResultsAndAnEmptyRunHasNoEntries() {
    RunInfo run = RunInfo.minimal("2", "1", Instant.EPOCH, 0);
    RunReport report = new RunReport(run, List.of(), List.of(
        result("ns::a", "gradcheck.jacobian", "cpu", "e", Outcome.SKIPPED, NO_GRAD)));
    Coverage.Entry e = report.coverage().entries().get(0);
    assertFalse(e.ran());
    assertEquals("never ran: " + NO_GRAD, e.describe());
    assertTrue(new RunReport(run, List.of(), List.of()).coverage().entries().isEmpty());
    assertNull(Coverage.EMPTY.gaps().isEmpty() ? null : "gaps");
  }
}
