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
