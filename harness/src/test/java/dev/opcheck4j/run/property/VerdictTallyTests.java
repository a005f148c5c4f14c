package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.ExampleRef;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.GenerationStats;
import dev.opcheck4j.checks.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tally of generated inputs on hand-made verdicts: no kernel, no worker. */
class VerdictTallyTests {
  private final VerdictTally tally = new VerdictTally("cpu", 30, 7);

  private static Verdict failed() {
    return Verdict.failed(Finding.of("sizes [2]", "sizes [3]", "-", new Cause.MetadataMismatch("output 0", "sizes")));
  }

  @Test
  void aCheckThatPassedOnEveryInputPassesWithHowManyAndTheSeed() {
    for (int i = 0; i < 3; i++) {
      assertFalse(tally.count("fake.metadata", Verdict.passed()));
    }
    assertEquals(Verdict.passed(Fact.of("inputs checked", 3), Fact.of("seed", 7)),
        tally.valueVerdict("fake.metadata", null, false));
  }

  @Test
  void aFailureOrAnErrorIsAFindingThatEndsTheCheck() {
    assertTrue(tally.count("fake.metadata", failed()));
    assertTrue(tally.count("determinism", Verdict.errored("boom")));
    assertFalse(tally.count("determinism", Verdict.skipped("no input requires grad")));
  }

  @Test
  void skippedInputsAreNotCheckedAndTheFirstReasonIsKept() {
    tally.count("gradcheck.jacobian", Verdict.skipped("no input requires grad"));
    tally.count("gradcheck.jacobian", Verdict.skipped("another reason"));
    assertEquals(Verdict.skipped("on every generated input (2): no input requires grad"),
        tally.valueVerdict("gradcheck.jacobian", null, false));
    tally.count("gradcheck.jacobian", Verdict.passed());
    assertEquals(Verdict.passed(Fact.of("inputs checked", 1),
            Fact.of("skipped on", "2 more (first reason: no input requires grad)"), Fact.of("seed", 7)),
        tally.valueVerdict("gradcheck.jacobian", null, false));
  }

  @Test
  void aCheckNoInputReachedIsSkippedNamingTheRejectionsNeverPassed() {
    for (int i = 0; i < 4; i++) {
      tally.countRejected("x must be contiguous");
    }
    assertEquals(Verdict.skipped("no generated input reached this check: the cpu kernel rejected all 4 tries"
        + " (see generate.domain)"), tally.valueVerdict("determinism", null, false));
  }

  @Test
  void aStopOfGenerationIsShownBeforeTheSeedOrAsTheReasonWhenNothingWasChecked() {
    Cut cut = new Cut(12, "the op killed its worker 3 times (see kernel.crash, kernel.timeout)");
    assertEquals(Verdict.skipped("generation on cpu stopped after 12 of 30 tries, before an input reached this check: "
        + cut.why()), tally.valueVerdict("determinism", cut, false));
    tally.count("determinism", Verdict.passed());
    assertEquals(Verdict.passed(Fact.of("inputs checked", 1),
            Fact.of("generation stopped", "after 12 of 30 tries, 18 not run: " + cut.why()), Fact.of("seed", 7)),
        tally.valueVerdict("determinism", cut, false));
    assertEquals(new ExampleRef(null, true, null, 7L, "12 of 30 tries from 2 examples", 12), tally.summary(cut, 2, 12));
    assertEquals(new ExampleRef(null, true, null, 7L, "30 tries from 1 example"), tally.summary(null, 1, 30));
  }

  @Test
  void aCheckWhoseOwnCallKilledTheWorkerIsSkippedNeverPassed() {
    tally.count("determinism", Verdict.passed());
    Cut own = new Cut(5, "its own call killed the worker on try 4 (see kernel.crash)");
    assertEquals(Verdict.skipped("generation on cpu stopped for this check after 5 of 30 tries (1 inputs checked): "
        + own.why()), tally.valueVerdict("determinism", own, true));
    assertEquals(Verdict.skipped("generation on cpu stopped for this check after 5 of 30 tries (0 rejected inputs"
        + " judged): " + own.why()), tally.rejectionVerdict("fake.permissive", own, true));
  }

  @Test
  void aRejectionCheckPassesOnTheRejectedInputsItJudgedAndSkipsWithoutAny() {
    assertEquals(Verdict.skipped("the cpu kernel rejected none of the generated inputs: nothing to judge"),
        tally.rejectionVerdict("fake.permissive", null, false));
    assertFalse(tally.countRejection("fake.permissive", Verdict.passed()));
    assertFalse(tally.countRejection("fake.permissive", Verdict.passed()));
    assertEquals(Verdict.passed(Fact.of("rejected inputs judged", 2), Fact.of("seed", 7)),
        tally.rejectionVerdict("fake.permissive", null, false));
    assertTrue(tally.countRejection("fake.permissive", failed()));
  }

  @Test
  void theStatsNameTheCommonestRejectionAndTheArgumentToBlame() {
    tally.countAccepted();
    tally.countRejected("expected sizes [2, 3], got 5");
    tally.countRejected("expected sizes [0, 1], got 2");
    tally.countRejected("x must be float32");
    tally.blame("x");
    tally.blame("x");
    tally.blame("s");
    GenerationStats stats = tally.stats(4, List.of("rejects float64 inputs"));
    assertEquals(new GenerationStats(4, 1, 3, List.of("rejects float64 inputs"),
        "\"expected sizes [2, 3], got 5\" (2 of 4 tries)",
        "'x': with the example's value back, the kernel accepted 2 of 3 rejected tries looked at"), stats);
  }

  @Test
  void theCauseOfOnlyTheFirstRejectionsIsLookedFor() {
    for (int i = 0; i < VerdictTally.BLAME_BUDGET; i++) {
      tally.countRejected("no");
      assertTrue(tally.blaming());
    }
    tally.countRejected("no");
    assertFalse(tally.blaming());
    assertEquals("no single argument (each put back alone was still rejected)", tally.stats(11, List.of()).blamed());
  }
}
