package dev.opcheck4j.checks.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.CorpusRun;
import dev.opcheck4j.testing.NativeOps;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The copy-on-write corpus (native-ops' cow_ops.cpp, issue 43): each op whose kernel takes a writable
 * pointer to an input its schema leaves immutable gets memory.cow-input's warning, naming the argument
 * and the call, forward or backward, and nothing else but what its markers say; the good twins, which read
 * through const_data_ptr(), pass everything. Real PyTorch 2.13.0 running test_cow_input's steps agrees
 * (fixtures/specs/memory/cow_ops.md).
 */
class CowCorpusTests {
  private static final String SPEC = "memory/cow_ops.json";
  private static CorpusRun corpus;

  @BeforeAll
  static void run() throws Exception {
    corpus = CorpusRun.of(SPEC, 30);
  }

  @TestFactory
  Stream<DynamicTest> eachOpHasFindingsInExactlyItsMarkedChecks() throws Exception {
    List<String> ops = SpecReader.read(NativeOps.spec(SPEC)).ops().stream().map(o -> o.op()).toList();
    assertFalse(ops.isEmpty());
    return corpus.eachOpHasFindingsInExactlyItsMarkedChecks("cow_ops.cpp", ops);
  }

  private static CheckResult warned(String op, String subject) {
    CheckResult r = corpus.one(op, CowInputCheck.ID, "cpu");
    assertEquals(Outcome.NOTE, r.outcome(), r.toString());
    assertEquals(new Cause.Contract(CowInputCheck.RULE, subject), r.finding().cause());
    return r;
  }

  @Test
  void aWritablePointerToAnInputIsAWarningNamingTheArgumentTheCallAndTheCost() {
    CheckResult r = warned("cow_ops::scale_mutable_ptr", "argument 'x', forward");
    assertEquals("argument 'x' materialized in the forward call; under lazy cloning each call copies 48 bytes of input"
        + " first", r.finding().actual());
    assertTrue(r.fact("hint").orElseThrow().startsWith("read the input through const_data_ptr()"), r.toString());
    warned("cow_ops::negative_sum_in_place", "argument 'x', forward");
  }

  @Test
  void aBackwardThatMaterializesASavedInputIsFoundInTheBackward() {
    CheckResult r = warned("cow_ops::square_saved_mutable", "argument 'x', backward");
    assertEquals("run", r.fact("backward").orElseThrow());
  }

  @Test
  void theGoodTwinsStayLazyForwardAndBackward() {
    for (String op : List.of("cow_ops::scale", "cow_ops::negative_sum", "cow_ops::square")) {
      CheckResult r = corpus.one(op, CowInputCheck.ID, "cpu");
      assertEquals(Outcome.PASSED, r.outcome(), r.toString());
      assertEquals("x", r.fact("lazily cloned").orElseThrow());
    }
    assertEquals("run", corpus.one("cow_ops::square", CowInputCheck.ID, "cpu").fact("backward").orElseThrow());
  }
}
