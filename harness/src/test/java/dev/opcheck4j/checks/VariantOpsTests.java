package dev.opcheck4j.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
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
 * Issue 32's declared dtypes and variant families, on native-ops' variant_ops.cpp: each good op has no
 * finding and no error; each bad op has findings in exactly the checks its {@code // EXPECT:} marker
 * lists, and says what a reader needs (the dtype and the kernel's error; both members' values).
 */
class VariantOpsTests {
  private static CorpusRun corpus;

  @BeforeAll
  static void run() throws Exception {
    corpus = CorpusRun.of("variants/variant_ops.json", CorpusTests.TRIES);
  }

  @TestFactory
  Stream<DynamicTest> eachOpHasFindingsInExactlyItsMarkedChecks() throws Exception {
    List<String> ops = SpecReader.read(NativeOps.spec("variants/variant_ops.json")).ops().stream().map(o -> o.op()).toList();
    assertFalse(ops.isEmpty());
    return corpus.eachOpHasFindingsInExactlyItsMarkedChecks("variant_ops.cpp", ops);
  }

  @Test
  void aDeclaredDtypeTheKernelRejectsFailsNamingTheDtypeAndTheError() {
    CheckResult r = corpus.one("variant_ops::dtype_missing", "dtype.declared", "cpu");
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    String butWas = r.fact("but was").orElseThrow();
    assertTrue(butWas.contains("float64") && butWas.contains("dtype_missing: x must be float32"), r.toString());
    assertEquals("float32", r.fact("forward ran").orElseThrow(), r.toString());
    CheckResult good = corpus.one("variant_ops::dtype_good", "dtype.declared", "cpu");
    assertEquals(Outcome.PASSED, good.outcome(), good.toString());
    assertEquals("float32, float64", good.fact("forward ran").orElseThrow(), good.toString());
  }

  @Test
  void anUndeclaredDtypeThatWorksIsAWarningSayingWorksButNotListed() {
    CheckResult r = corpus.one("variant_ops::dtype_unlisted", "dtype.unlisted", "cpu");
    assertEquals(Outcome.WARNING, r.outcome(), r.toString());
    assertTrue(r.fact("but was").orElseThrow().startsWith("works but not listed: float64"), r.toString());
    assertTrue(r.fact("hint").orElseThrow().contains("add float64"), r.toString());
  }

  @Test
  void aSpecWithoutDtypesSaysThereIsNoClaimToCheck() {
    CheckResult r = corpus.one("variant_ops::triple", "dtype.declared", "cpu");
    assertEquals(Outcome.SKIPPED, r.outcome(), r.toString());
    assertTrue(r.fact("reason").orElseThrow().contains("declares no dtypes"), r.toString());
  }

  @Test
  void anInPlaceVariantThatComputesSomethingElseFailsWithBothValuesAndAHeatmap() {
    failsShowingBothValues("variant_ops::quad_", "variant_ops::quad");
  }

  /** {@code member}'s variant.agree fails against {@code functional}, with both values and a heatmap. */
  private static void failsShowingBothValues(String member, String functional) {
    CheckResult r = corpus.one(member, "variant.agree", "cpu");
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    assertTrue(r.fact("expected").orElseThrow().contains("output 0 of " + functional + " "), r.toString());
    // the first differing element with both values, and a few values of each side
    assertTrue(r.fact("first difference").orElseThrow().matches("\\[0, 0\\]: \\S+ instead of \\S+"), r.toString());
    assertTrue(r.fact(functional + " gives").orElseThrow().startsWith("float32[4, 3] ["), r.toString());
    assertTrue(r.fact(member + " gives").orElseThrow().startsWith("float32[4, 3] ["), r.toString());
    assertFalse(r.finding().heatmaps().isEmpty(), r.toString());
  }

  @Test
  void membersThatAgreePassAndTheFunctionalOneHasNothingToCompare() {
    for (String op : List.of("variant_ops::triple_", "variant_ops::triple.out", "variant_ops::quad.out")) {
      CheckResult r = corpus.one(op, "variant.agree", "cpu");
      assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    }
    assertEquals(Outcome.FAILED, corpus.one("variant_ops::half_out", "variant.agree", "cpu").outcome());
    CheckResult functional = corpus.one("variant_ops::triple", "variant.agree", "cpu");
    assertEquals(Outcome.SKIPPED, functional.outcome(), functional.toString());
  }

  @Test
  void aFamilyTheSpecNamesIsCheckedLikeOneNamedByThePattern() {
    for (String op : List.of("variant_ops::fivefold_inplace", "variant_ops::fivefold_into")) {
      CheckResult r = corpus.one(op, "variant.agree", "cpu");
      assertEquals(Outcome.PASSED, r.outcome(), r.toString());
      assertTrue(r.fact("family").orElseThrow().startsWith("variant_ops::fivefold (functional)"), r.toString());
    }
    failsShowingBothValues("variant_ops::sixfold_inplace", "variant_ops::sixfold");
  }

  @Test
  void anOpTheSpecSaysIsNoVariantIsNotComparedAndCoverageSaysWhyByDesign() {
    CheckResult r = corpus.one("variant_ops::quad_out", "variant.agree", "cpu");
    assertEquals(Outcome.SKIPPED, r.outcome(), r.toString());
    String reason = r.fact("reason").orElseThrow();
    assertTrue(reason.startsWith(Coverage.NOT_APPLICABLE) && reason.contains("writes x to the fourth power"), reason);
    assertTrue(corpus.report().coverage().of("variant_ops::quad_out").stream().filter(e -> e.family().equals("variant") && "cpu".equals(e.device()))
        .allMatch(Coverage.Entry::bySpec), "coverage counts it by design, not as a gap");
  }

  @Test
  void eachOutRuleFailsItsOwnOpWithItsOwnCause() {
    CheckResult reads = corpus.one("variant_ops::accum_out", "out.reads-out", "cpu");
    assertEquals(Outcome.FAILED, reads.outcome(), reads.toString());
    assertTrue(reads.fact("expected").orElseThrow().contains("NaN, then a large finite value"), reads.toString());
    CheckResult strides = corpus.one("variant_ops::flat_out", "out.strides", "cpu");
    assertEquals(Outcome.FAILED, strides.outcome(), strides.toString());
    assertFalse(strides.finding().heatmaps().isEmpty(), strides.toString());
    CheckResult shape = corpus.one("variant_ops::prefix_out", "out.shape", "cpu");
    assertEquals(Outcome.FAILED, shape.outcome(), shape.toString());
    assertEquals("the kernel accepted it and left it float32[5, 3]", shape.fact("but was").orElseThrow(), shape.toString());
    CheckResult dtype = corpus.one("variant_ops::bytes_out", "out.dtype", "cpu");
    assertEquals(Outcome.FAILED, dtype.outcome(), dtype.toString());
    assertTrue(dtype.fact("expected").orElseThrow().contains("'out' as int32"), dtype.toString());
  }

  @Test
  void aGoodOutOpPassesEveryOutRuleByRejectingWhatItCannotWrite() {
    String op = "variant_ops::triple.out";
    assertEquals(Outcome.PASSED, corpus.one(op, "out.reads-out", "cpu").outcome());
    assertEquals(Outcome.PASSED, corpus.one(op, "out.strides", "cpu").outcome());
    assertTrue(corpus.one(op, "out.shape", "cpu").fact("rejected").orElseThrow().contains("out must have x's sizes"));
    assertTrue(corpus.one(op, "out.dtype", "cpu").fact("rejected").orElseThrow().contains("out must have x's dtype"));
    // a positional (a!) of an untagged op is not write-only: the rule is stated in the skip
    CheckResult inPlace = corpus.one("variant_ops::triple_", "out.reads-out", "cpu");
    assertEquals(Outcome.SKIPPED, inPlace.outcome(), inPlace.toString());
    assertTrue(inPlace.fact("reason").orElseThrow().contains("keyword-only Tensor(a!)"), inPlace.toString());
  }
}
