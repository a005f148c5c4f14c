package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.generate.DomainCheck;
import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.testing.CorpusRun;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.OpLibrary;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Arguments whose sizes are tied (issue 43, native-ops' tied_ops.cpp): generation keeps the relation the
 * example shows (an int n = x.size(0) + 1; a tensor w as long as a and b together, learned by probing), so
 * the kernel accepts its tries and a Meta defect that shows only on other valid sizes is found.
 */
class TiedArgumentsTests {
  private static final String SPEC = "generation/tied_ops.json";
  private static CorpusRun corpus;

  @BeforeAll
  static void run() throws Exception {
    corpus = CorpusRun.of(SPEC, 100);
  }

  @TestFactory
  Stream<DynamicTest> eachOpHasFindingsInExactlyItsMarkedChecks() throws Exception {
    List<String> ops = SpecReader.read(NativeOps.spec(SPEC)).ops().stream().map(o -> o.op()).toList();
    return corpus.eachOpHasFindingsInExactlyItsMarkedChecks("tied_ops.cpp", ops);
  }

  @Test
  void anIntOneMoreThanASizeFollowsTheSizeInTiedTriesAndNotInUntiedOnes() throws Exception {
    var schema = OpLibrary.load(NativeOps.lib("tied_ops")).op("tied_ops::prefix_sums").schema();
    SpecValue x = new SpecValue(Map.of("tensor", new SpecValue(List.of(new SpecValue(4L, "-")), "-")), "-");
    ExampleGenerator gen = new ExampleGenerator(schema, new Example("e", List.of(x, new SpecValue(5L, "-")), Map.of()),
        Vary.NONE);
    assertEquals(List.of("sizes related in e: n = the size 4 + 1 of its tensors (tied tries keep it: n follows the size"
        + " drawn for 4)"), gen.relations());
    for (long seed = 0; seed < 40; seed++) {
      Choices c = Choices.random(seed);
      Example e = gen.generate(c);
      long length = (Long) e.args().get(0).object().get("tensor").list().get(0).value();
      long n = (Long) e.args().get(1).value();
      if (!gen.drewUntied(c.sequence())) {
        assertEquals(length + 1, n, e.toString());
      } else {
        assertEquals(5, n, "untied tries draw sizes on their own and leave n as the example has it");
      }
    }
  }

  @Test
  void theMetaDefectOnlyValidLengthsReachIsFoundAndRejectedTriesAreRare() {
    CheckResult meta = corpus.of("tied_ops::prefix_sums_meta_example_only")
        .filter(r -> r.check().equals("fake.metadata") && r.outcome() == Outcome.FAILED).findFirst().orElseThrow();
    assertTrue(meta.example().startsWith("generated"), meta.toString());
    CheckResult domain = corpus.of("tied_ops::prefix_sums").filter(r -> r.check().equals("generate.domain")
        && r.device().equals("cpu")).findFirst().orElseThrow();
    assertEquals(Outcome.PASSED, domain.outcome(), domain.toString());
    assertTrue(Long.parseLong(domain.fact(DomainCheck.ACCEPTED).orElseThrow()) >= 90, domain.toString());
    assertFalse(domain.facts().stream().noneMatch(f -> f.value().startsWith("sizes related in")), domain.toString());
  }

  @Test
  void aLengthThatIsTheSumOfTwoInputsIsLearnedSoNoTryIsRejectedAndTheMetaDefectOnUnequalHalvesIsFound() {
    for (String op : List.of("tied_ops::weighted_cat", "tied_ops::weighted_cat_meta_equal_halves")) {
      CheckResult domain = corpus.of(op).filter(r -> r.check().equals("generate.domain") && r.device().equals("cpu"))
          .findFirst().orElseThrow();
      // main's generator, which drew w's length on its own: 92 and 98 of 100 tries rejected (seed 7)
      assertEquals(Outcome.PASSED, domain.outcome(), domain.toString());
      assertEquals("0 (the cpu kernel raised on them)", domain.fact(DomainCheck.DISCARDED).orElseThrow(), domain.toString());
      assertTrue(domain.facts().stream().anyMatch(f -> f.key().equals("domain")
          && f.value().startsWith("sizes related in ") && f.value().contains(": w.size(0) = a.size(0) + b.size(0) (learned: ")),
          domain.toString());
    }
    CheckResult meta = corpus.of("tied_ops::weighted_cat_meta_equal_halves")
        .filter(r -> r.check().equals("fake.metadata") && r.outcome() == Outcome.FAILED).findFirst().orElseThrow();
    assertTrue(meta.example().startsWith("generated"), meta.toString());
    assertEquals("a=float32[0], b=float32[1], w=float32[1]  (shrunk in 5 steps)", meta.fact(Fact.MINIMAL_EXAMPLE).orElseThrow());
  }

  @Test
  void aTensorTheKernelTakesInADtypeOfItsOwnIsDrawnSoAKernelReadingItAsTheOthersDtypeIsFound() {
    for (String op : List.of("tied_ops::shift_by", "tied_ops::shift_by_as_x")) {
      CheckResult domain = corpus.of(op).filter(r -> r.check().equals("generate.domain") && r.device().equals("cpu"))
          .findFirst().orElseThrow();
      assertEquals(Outcome.PASSED, domain.outcome(), domain.toString());
      assertTrue(domain.facts().stream().anyMatch(f -> f.value().startsWith("mixed dtypes: 's' also as float64 while")),
          domain.toString());
    }
    CheckResult good = corpus.of("tied_ops::shift_by").filter(r -> r.check().equals("reference.values")
        && r.example().startsWith("generated")).findFirst().orElseThrow();
    assertEquals(Outcome.PASSED, good.outcome(), good.toString());
    CheckResult bad = corpus.of("tied_ops::shift_by_as_x").filter(r -> r.check().equals("reference.values")
        && r.outcome() == Outcome.FAILED).findFirst().orElseThrow();
    assertTrue(bad.example().startsWith("generated"), "the example's float32 s reads right: " + bad);
    assertTrue(bad.fact(Fact.MINIMAL_EXAMPLE).orElseThrow().contains("s=float64"), bad.toString());
  }
}
