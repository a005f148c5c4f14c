package dev.opcheck4j.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.testing.CorpusRun;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Tensors past libtorch's dimension limit (65 dimensions; its functions over lists of dimensions take 64): a
 * check that needs such a function says Skipped with the reason, never Errored (issue 52: memory.cow-input's
 * allclose raised "only tensors with up to 64 dims are supported").
 */
class DimensionLimitTests {
  @Test
  void aTensorPastTheDimensionLimitIsSkippedWithTheReasonNeverErrored() throws Exception {
    CorpusRun corpus = CorpusRun.of("memory/past_dim_limit.json", 5);
    for (String op : List.of("good_ops::add_scalar", "good_ops::scaled_square")) {
      assertEquals(List.of(), corpus.of(op).filter(r -> r.outcome() == Outcome.ERRORED).toList());
      CheckResult cow = corpus.one(op, "memory.cow-input", "cpu");
      assertEquals(Outcome.SKIPPED, cow.outcome(), cow.toString());
      assertTrue(cow.reason().startsWith("argument 'x' has 65 dimensions, past the " + Subject.MAX_DIMS), cow.reason());
    }
    assertEquals(Outcome.PASSED, corpus.one("good_ops::add_scalar", "reference.values", "cpu").outcome(),
        "a check that needs no function over dimensions still runs");
  }
}
