package dev.opcheck4j.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.plan.LibraryInfo;
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
 * Issue 32's tags, on native-ops' tags_ops.cpp, which registers them through the 2.13 stable ABI's
 * {@code def(schema, tags)} while its spec declares none (issue 40): each op whose tag holds has no finding;
 * each op whose tag lies, or is missing, has findings in exactly the checks its {@code // EXPECT:} marker
 * lists; and every result a tag changed says the tag is registered.
 */
class TagsOpsTests {
  private static final String SPEC = "tags/tags_ops.json";
  private static CorpusRun corpus;

  @BeforeAll
  static void run() throws Exception {
    corpus = CorpusRun.of(SPEC, CorpusTests.TRIES);
  }

  @TestFactory
  Stream<DynamicTest> eachOpHasFindingsInExactlyItsMarkedChecks() throws Exception {
    List<String> ops = SpecReader.read(NativeOps.spec(SPEC)).ops().stream().map(o -> o.op()).toList();
    assertEquals(8, ops.size());
    return corpus.eachOpHasFindingsInExactlyItsMarkedChecks("tags_ops.cpp", ops);
  }

  @Test
  void theLibraryRegistersTheTagsAndTheSpecDeclaresNone() throws Exception {
    for (var entry : SpecReader.read(NativeOps.spec(SPEC)).ops()) {
      assertEquals(List.of(), entry.tags(), entry.op());
    }
    java.util.Map<String, List<String>> tags = Launcher.describe(NativeOps.lib("tags_ops")).ops().stream()
        .collect(java.util.stream.Collectors.toMap(LibraryInfo.Op::name, LibraryInfo.Op::tags));
    assertEquals(List.of("pt2_compliant_tag"), tags.get("tags_ops::scale_wrong_meta"));
    assertEquals(List.of("nondeterministic_seeded"), tags.get("tags_ops::dropout"));
    assertEquals(List.of("dynamic_output_shape"), tags.get("tags_ops::positive"));
    assertEquals(List.of("inplace_view"), tags.get("tags_ops::fresh_t_"));
    assertEquals(List.of(), tags.get("tags_ops::dropout_untagged"));
  }

  @Test
  void aPt2CompliantOpThatFailsAnOpcheckCheckFailsOnceMoreNamingIt() {
    CheckResult r = corpus.of("tags_ops::scale_wrong_meta").filter(x -> x.check().equals("tags.pt2-compliant"))
        .findFirst().orElseThrow();
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    assertEquals("fake.metadata", r.fact("failed checks").orElseThrow(), r.toString());
    assertTrue(r.finding().expected().contains("pt2_compliant_tag (registered)"),
        r.toString());
    CheckResult earned = corpus.of("tags_ops::scale").filter(x -> x.check().equals("tags.pt2-compliant"))
        .findFirst().orElseThrow();
    assertEquals(Outcome.PASSED, earned.outcome(), earned.toString());
  }

  @Test
  void aTagCheckGivesNoResultOnAnOpWithoutTheTag() {
    for (String op : List.of("tags_ops::dropout_untagged", "tags_ops::positive_untagged", "tags_ops::dropout")) {
      assertEquals(List.of(), corpus.of(op).filter(r -> r.family().equals("tags")).toList(), op);
    }
  }

  @Test
  void aSeededOpIsComparedUnderOneSeedAndTheUntaggedOneIsNot() {
    CheckResult seeded = corpus.one("tags_ops::dropout", "determinism", "cpu");
    assertEquals(Outcome.PASSED, seeded.outcome(), seeded.toString());
    assertEquals("torch.manual_seed(7) before each call: the op is tagged nondeterministic_seeded (registered)", seeded.fact(dev.opcheck4j.checks.determinism.DeterminismCheck.SEEDED).orElseThrow());
    CheckResult untagged = corpus.one("tags_ops::dropout_untagged", "determinism", "cpu");
    assertEquals(Outcome.FAILED, untagged.outcome(), untagged.toString());
    assertTrue(untagged.fact("hint").orElseThrow().contains("tagged nondeterministic_seeded"), untagged.toString());
    // torchscript.call compares a direct call with one from TorchScript: both seeded
    assertEquals(Outcome.PASSED, corpus.one("tags_ops::dropout", "torchscript.call", "cpu").outcome());
  }

  @Test
  void theFakeComparisonSkipsADynamicShapeOpWithTheTagAsItsReason() {
    CheckResult r = corpus.one("tags_ops::positive", "fake.metadata", "cpu");
    assertEquals(Outcome.SKIPPED, r.outcome(), r.toString());
    String reason = r.fact("reason").orElseThrow();
    assertTrue(reason.startsWith("does not apply: the op is tagged dynamic_output_shape (registered)"), reason);
    assertTrue(reason.contains("CrossRefFakeMode"), reason);
    // the same kernels untagged: the meta kernel's size is wrong
    CheckResult untagged = corpus.one("tags_ops::positive_untagged", "fake.metadata", "cpu");
    assertEquals("output 0 sizes [12] on meta, [5] real", untagged.fact("but was").orElseThrow(), untagged.toString());
    // a Meta kernel is still asked for (opcheck's test_aot_dispatch_dynamic traces the op)
    assertEquals(Outcome.PASSED, corpus.of("tags_ops::positive").filter(x -> x.check().equals("fake.missing"))
        .findFirst().orElseThrow().outcome());
  }

  @Test
  void anInplaceViewOpMustReturnItsArgumentAndOneReturningACopyIsAWarning() {
    CheckResult good = corpus.one("tags_ops::t_", "tags.inplace-view", "cpu");
    assertEquals(Outcome.PASSED, good.outcome(), good.toString());
    assertEquals("output 0 is 'x' itself", good.fact("returned").orElseThrow());
    CheckResult bad = corpus.one("tags_ops::fresh_t_", "tags.inplace-view", "cpu");
    assertEquals(Outcome.WARNING, bad.outcome(), bad.toString());
    assertEquals("output 0 shares no memory with 'x': a new tensor", bad.fact("but was").orElseThrow());
    assertFalse(corpus.one("tags_ops::t_", "fake.metadata", "cpu").fact("reason").orElseThrow().isEmpty());
  }
}
