package dev.opcheck4j.checks;

import dev.opcheck4j.checks.determinism.DeterminismCheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * Issue 40: what the stable ABI of 2.11-2.13 adds, on native-ops' abi213_ops.cpp (built for 2.13): a
 * {@code Generator?} argument the determinism check seeds, and outputs built with {@code torch_from_blob}.
 * Each op has findings in exactly the checks its {@code // EXPECT:} marker lists.
 */
class Abi213OpsTests {
  private static final String SPEC = "abi213/abi213_ops.json";
  private static CorpusRun corpus;

  @BeforeAll
  static void run() throws Exception {
    corpus = CorpusRun.of(SPEC, CorpusTests.TRIES);
  }

  @TestFactory
  Stream<DynamicTest> eachOpHasFindingsInExactlyItsMarkedChecks() throws Exception {
    List<String> ops = SpecReader.read(NativeOps.spec(SPEC)).ops().stream().map(o -> o.op()).distinct().toList();
    assertEquals(NativeOps.opsIn("abi213_ops.cpp"), ops, "the spec covers every op, in source order");
    return corpus.eachOpHasFindingsInExactlyItsMarkedChecks("abi213_ops.cpp", ops);
  }

  @Test
  void anOpPassedAGeneratorIsComparedUnderTwoEquallySeededOnesAndTwoDefaultSeeds() {
    CheckResult good = corpus.one("abi213_ops::dropout", "determinism", "cpu");
    assertEquals(Outcome.PASSED, good.outcome(), good.toString());
    assertEquals("each call passed a generator seeded alike ('generator' seed 3); torch's default generator started"
        + " from seed 7, then 8", good.fact(DeterminismCheck.GENERATOR).orElseThrow(), good.toString());
    CheckResult bad = corpus.one("abi213_ops::dropout_ignores_generator", "determinism", "cpu");
    assertEquals(Outcome.FAILED, bad.outcome(), bad.toString());
    assertEquals("bitwise-equal outputs from two calls on equal inputs, each passed a generator seeded alike",
        bad.finding().expected());
    assertTrue(bad.finding().hint().contains("draws its random numbers from it alone"), bad.toString());
  }

  @Test
  void anOpGivenNoGeneratorIsStillComparedUnderOneSeedOfItsTag() {
    // the second example leaves generator=None: the kernel draws from torch's default generator, which the
    // nondeterministic_seeded tag (registered) has seeded alike before each call
    CheckResult r = corpus.of("abi213_ops::dropout").filter(x -> x.check().equals("determinism")
        && "abi213_ops.json#ops[0].examples[1]".equals(x.example())).findFirst().orElseThrow();
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals("torch.manual_seed(7) before each call: the op is tagged nondeterministic_seeded (registered)",
        r.fact(DeterminismCheck.SEEDED).orElseThrow(), r.toString());
  }

  @Test
  void outputsBuiltWithFromBlobPassEveryCheckThatRuns() {
    for (String op : List.of("abi213_ops::blob_square", "abi213_ops::blob_cube")) {
      assertEquals(List.of(), corpus.of(op).filter(r -> r.outcome() != Outcome.PASSED && r.outcome() != Outcome.SKIPPED)
          .filter(r -> !dev.opcheck4j.testing.CorpusRun.ubiquitous(r))
          .toList(), op);
      assertEquals(Outcome.PASSED, corpus.one(op, "memory.uninitialized", "cpu").outcome(), op);
    }
  }
}
