package dev.opcheck4j.checks.tags;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.FinishedOp;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import java.util.List;
import org.junit.jupiter.api.Test;

/** tags.pt2-compliant judges only the opcheck-equivalent checks that ran: skipped ones earn the tag nothing. */
class Pt2CompliantCheckTests {
  private static final OpTags TAGGED = new OpTags(List.of(OpTags.PT2_COMPLIANT), List.of(), "");

  private static Outcome judged(Outcome fakeMetadata) {
    CheckResult r = new CheckResult("t::f", "fake.metadata", "cpu", "t.json#ops[0].examples[0]", fakeMetadata,
        fakeMetadata == Outcome.SKIPPED ? List.of(Fact.of("reason", "no example")) : List.of(), 0);
    FinishedOp done = new FinishedOp("t::f", Coverage.EMPTY, List.of(), TAGGED, List.of(r));
    return ((Pt2CompliantCheck) BuiltinChecks.byId(Pt2CompliantCheck.ID).orElseThrow()).judge(done).get(0).verdict().outcome();
  }

  @Test
  void aTagIsJudgedOnlyOnTheChecksThatRan() {
    assertEquals(Outcome.PASSED, judged(Outcome.PASSED));
    assertEquals(Outcome.FAILED, judged(Outcome.FAILED));
    assertEquals(Outcome.SKIPPED, judged(Outcome.SKIPPED), "nothing ran: the tag is neither earned nor refuted");
  }
}
