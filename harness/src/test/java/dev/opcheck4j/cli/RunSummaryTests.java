package dev.opcheck4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.Coverage;
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
}
