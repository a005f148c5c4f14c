package dev.opcheck4j.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.SeverityPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a finding becomes, per severity of its check and per policy: the one table api/SeverityPolicy holds. */
class SeverityPolicyTests {
  private static final CheckInfo ERROR = CheckInfo.error("x.error", CheckInfo.Scope.OP, "an error check");
  private static final CheckInfo WARNING = CheckInfo.warning("x.warning", CheckInfo.Scope.OP, "a warning check");
  private static final CheckInfo NOTE = CheckInfo.note("x.note", CheckInfo.Scope.OP, "a note check");

  /** The outcomes of a finding of an error, a warning and a note check under {@code policy}. */
  private static List<Outcome> outcomes(SeverityPolicy policy) {
    return List.of(policy.findingOutcome(ERROR), policy.findingOutcome(WARNING), policy.findingOutcome(NOTE));
  }

  @Test
  void aNoteIsANoteUnlessStrictMakesItAWarningAndWarningsAsErrorsAloneLeavesItANote() {
    assertEquals(List.of(Outcome.FAILED, Outcome.WARNING, Outcome.NOTE), outcomes(SeverityPolicy.DEFAULT));
    assertEquals(List.of(Outcome.FAILED, Outcome.FAILED, Outcome.NOTE), outcomes(SeverityPolicy.WARNINGS_AS_ERRORS));
    assertEquals(List.of(Outcome.FAILED, Outcome.WARNING, Outcome.WARNING), outcomes(SeverityPolicy.STRICT));
    assertEquals(List.of(Outcome.FAILED, Outcome.FAILED, Outcome.FAILED), outcomes(new SeverityPolicy(true, true)));
  }

  @Test
  void aSpecsPolicyAddsToTheRunsSwitchBySwitch() {
    assertEquals(new SeverityPolicy(true, true), SeverityPolicy.STRICT.and(SeverityPolicy.WARNINGS_AS_ERRORS));
    assertEquals(SeverityPolicy.STRICT, SeverityPolicy.DEFAULT.and(SeverityPolicy.STRICT));
    assertEquals(SeverityPolicy.DEFAULT, SeverityPolicy.DEFAULT.and(SeverityPolicy.DEFAULT));
  }

  @Test
  void aNotePassesTheRunAndItsCheckAsAWarningDoes() {
    assertFalse(Outcome.NOTE.failsRun());
    assertTrue(Outcome.NOTE.passes(), "a check that requires a note check still runs");
    assertEquals("note", Outcome.NOTE.label());
    assertEquals(Outcome.NOTE, Outcome.ofLabel("note"));
  }
}
