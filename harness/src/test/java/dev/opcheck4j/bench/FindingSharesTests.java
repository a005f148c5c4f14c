package dev.opcheck4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code bench composites} counts: ops per outcome and per check, each op once. */
class FindingSharesTests {
  private static CheckResult result(String op, String check, Outcome outcome) {
    return new CheckResult(op, check, "cpu", "#0", outcome, List.of(), 0);
  }

  @Test
  void anOpIsCountedOncePerOutcomeAndPerCheckAndPassesAndSkipsAreNotCounted() {
    FindingShares shares = FindingShares.of(List.of(
        result("ns::a", "trace.specialization", Outcome.WARNING),
        result("ns::a", "trace.specialization", Outcome.WARNING), // meta and cpu: one op
        result("ns::a", "memory.cow-input", Outcome.WARNING),
        result("ns::b", "memory.cow-input", Outcome.WARNING),
        result("ns::b", "schema.types", Outcome.PASSED),
        result("ns::c", "gradcheck.jacobian", Outcome.SKIPPED),
        result("ns::d", "fake.shape", Outcome.FAILED)));
    assertEquals(4, shares.ops().size());
    assertEquals(2, shares.count(Outcome.WARNING));
    assertEquals(1, shares.count(Outcome.WARNING, "trace.specialization"));
    assertEquals(2, shares.count(Outcome.WARNING, "memory.cow-input"));
    assertEquals(0, shares.count(Outcome.PASSED));
    assertEquals(List.of("warning: 2 of 4 ops (50%): memory.cow-input 2, trace.specialization 1",
        "failed: 1 of 4 ops (25%): fake.shape 1"), shares.lines());
  }

  @Test
  void theWarningLineIsThereAtZero() {
    assertEquals(List.of("warning: 0 of 1 ops (0%)"),
        FindingShares.of(List.of(result("ns::a", "schema.types", Outcome.PASSED))).lines());
  }
}
