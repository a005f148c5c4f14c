package dev.opcheck4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The console's closing lines about what a run did not cover. */
class RunSummaryTests {

  @Test
  void generationThatStoppedEarlySaysWhereAndHowManyTriesEachFamilyLost() {
    Coverage coverage = new Coverage(List.of(
        new Coverage.Entry("ns::a", "mutation", "cpu", 1, 12, null, false, 18),
        new Coverage.Entry("ns::a", "fake", "cpu", 1, 30, null, false, 0),
        new Coverage.Entry("ns::a", "determinism", "cpu", 1, 12, null, false, 18),
        new Coverage.Entry("ns::b", "determinism", "cpu", 1, 30, null, false)));
    assertEquals(List.of("generation stopped early on ns::a on cpu (the op kept killing its worker): 18 of 30 tries"
        + " not run for mutation, determinism"), RunSummary.gapLines(coverage));
    assertEquals("1 example + 12 generated (generation stopped: 18 of 30 tries not run)",
        coverage.entries().get(0).describe());
  }

  /** Ops a family never ran on for different reasons are grouped by reason, not given one op's reason. */
  @Test
  void aFamilyThatNeverRanOnOpsForDifferentReasonsGroupsTheOpsByReason() {
    String noKernel = "the op has no Autograd or CompositeImplicitAutograd kernel for cpu";
    String noGrad = "no input requires grad";
    Coverage coverage = new Coverage(List.of(
        new Coverage.Entry("ns::a", "gradcheck", "cpu", 0, null, noKernel, false),
        new Coverage.Entry("ns::b", "gradcheck", "cpu", 0, null, noGrad, false),
        new Coverage.Entry("ns::c", "gradcheck", "cpu", 0, null, noKernel, false)));
    assertEquals(List.of("gradcheck never ran on 3 of 3 ops — or --require gradcheck to fail on this:",
        "  2 ops: " + noKernel, "  1 op: " + noGrad), RunSummary.gapLines(coverage));
  }

  /**
   * Issue 45: on several runtimes the notes say which runtime; a runtime that never ran several families on the
   * same ops for one reason (a library it refused) says so in one line.
   */
  @Test
  void onSeveralRuntimesTheNotesNameTheRuntime() {
    String refused = "needs libtorch \u2265 2.13: uses torch_from_blob (2.11)";
    String noGrad = "no input requires grad";
    Coverage coverage = new Coverage(List.of(
        new Coverage.Entry("t::doubled", "fake", "cpu", 0, 0, refused, false, 0, "2.10.0"),
        new Coverage.Entry("t::doubled", "fake", "cpu", 1, 0, null, false, 0, "2.13.0"),
        new Coverage.Entry("t::doubled", "kernel", "cpu", 0, 0, refused, false, 0, "2.10.0"),
        new Coverage.Entry("t::doubled", "kernel", "cpu", 1, 0, null, false, 0, "2.13.0"),
        new Coverage.Entry("d::scale", "gradcheck", "cpu", 0, 0, noGrad, false, 0, "2.10.0"),
        new Coverage.Entry("d::scale", "gradcheck", "cpu", 0, 0, "other", false, 0, "2.13.0")));
    assertEquals(List.of(
        "on 2.10.0: fake, kernel never ran on 1 of 1 op: " + refused + " — or --require fake --require kernel to fail on this",
        "gradcheck never ran on 1 of 1 op: on 2.10.0: " + noGrad + "; on 2.13.0: other — or --require gradcheck to fail on this"),
        RunSummary.gapLines(coverage).stream().map(l -> l.replace("\n  ", " ")).toList(), "unwrapped");
  }

  /** Ops a family never ran on for one reason keep the one line. */
  @Test
  void aFamilyThatNeverRanOnOpsForOneReasonSaysItOnOneLine() {
    String noGrad = "no input requires grad";
    Coverage coverage = new Coverage(List.of(
        new Coverage.Entry("ns::a", "gradcheck", "cpu", 0, null, noGrad, false),
        new Coverage.Entry("ns::b", "gradcheck", "cpu", 1, null, null, false)));
    assertEquals(List.of("gradcheck never ran on 1 of 2 ops: " + noGrad + " — or --require gradcheck to fail on this"),
        RunSummary.gapLines(coverage));
  }

  /** A check that passed without looking at everything says so: a run must say what it did not check. */
  @Test
  void whatPassedResultsDidNotCheckIsGatheredPerCheckOverTheOpsItRanOn() {
    Fact unchecked = Fact.of(Fact.NOT_CHECKED, "outputs the kernel allocates itself");
    List<CheckResult> results = List.of(
        new CheckResult("ns::a", "memory.bounds", "cpu", "s.json#ops[0].examples[0]", Outcome.PASSED, List.of(unchecked), 1),
        new CheckResult("ns::a", "memory.bounds", "cpu", "s.json#ops[0].examples[1]", Outcome.PASSED, List.of(unchecked), 1),
        new CheckResult("ns::b", "memory.bounds", "cpu", "s.json#ops[1].examples[0]", Outcome.PASSED, List.of(), 1),
        new CheckResult("ns::c", "memory.bounds", "cpu", "s.json#ops[2].examples[0]", Outcome.SKIPPED,
            List.of(Fact.of("reason", "no tensor argument")), 1));
    assertEquals(List.of("memory.bounds passed 1 of 2 ops without checking everything: outputs the kernel allocates itself"),
        RunSummary.notCheckedLines(results));
  }
}
