package dev.opcheck4j.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.generate.example.SizeRelation;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The relations beyond equal sizes an example shows (issue 43): which ones, in which order of preference,
 * and that a generator keeping some keeps them in tied and untied tries alike. No kernel runs.
 */
class SizeRelationsTests {

  private static SpecValue tensor(long... sizes) {
    List<SpecValue> dims = new ArrayList<>();
    for (long s : sizes) {
      dims.add(new SpecValue(s, "-"));
    }
    return new SpecValue(Map.of("tensor", new SpecValue(dims, "-")), "-");
  }

  private static long size(Example e, int arg, int dim) {
    return (Long) e.args().get(arg).object().get("tensor").list().get(dim).value();
  }

  private static OpSchema schema(String op) throws Exception {
    return OpLibrary.load(NativeOps.lib("tied_ops")).op(op).schema();
  }

  @Test
  void aSumOfTwoInputsLengthsComesFirstAndOneRelationPerSize() throws Exception {
    ExampleGenerator gen = new ExampleGenerator(schema("tied_ops::weighted_cat"),
        new Example("e", List.of(tensor(2), tensor(5), tensor(7)), Map.of()), Vary.NONE);
    // 7 = 2 + 5 is a sum and an offset of 5 from a (or 2 from b): the sum is preferred; 5 = 2 + 3 is an offset
    assertEquals(List.of("b.size(0) = a.size(0) + 3", "w.size(0) = a.size(0) + b.size(0)"),
        gen.relationCandidates().stream().map(SizeRelation::text).toList());
  }

  @Test
  void aGeneratorKeepingTheSumKeepsItInTiedAndUntiedTries() throws Exception {
    ExampleGenerator plain = new ExampleGenerator(schema("tied_ops::weighted_cat"),
        new Example("e", List.of(tensor(3), tensor(3), tensor(6)), Map.of()), Vary.NONE);
    List<SizeRelation> sum = plain.relationCandidates().stream().filter(r -> r.kind() == SizeRelation.Kind.SUM).toList();
    assertEquals(List.of("w.size(0) = a.size(0) + b.size(0)"), sum.stream().map(SizeRelation::text).toList());
    ExampleGenerator gen = plain.withRelations(sum);
    int unequal = 0;
    for (long seed = 0; seed < 60; seed++) {
      Choices c = Choices.random(seed);
      Example e = gen.generate(c);
      assertEquals(size(e, 0, 0) + size(e, 1, 0), size(e, 2, 0), e.toString());
      if (gen.drewUntied(c.sequence()) && size(e, 0, 0) != size(e, 1, 0)) {
        unequal++;
      }
    }
    assertEquals(true, unequal > 0, "untied tries give a and b of different lengths, w still their sum");
    // the probe's sizes: every size s drawn as 2s + 1, the kept relation applied on top
    Example fresh = gen.generate(Choices.replay(gen.freshSizes()));
    assertEquals(List.of(7L, 7L, 14L), List.of(size(fresh, 0, 0), size(fresh, 1, 0), size(fresh, 2, 0)));
    Example broken = plain.withRelations(List.of(sum.get(0).broken())).generate(Choices.replay(plain.freshSizes()));
    assertEquals(15L, size(broken, 2, 0), "broken by one");
  }

  @Test
  void aGeneratorKeepingTheExamplesSizesDrawsNoOtherSizeAndNoSizeEdgeCase() throws Exception {
    // a kernel whose sizes relate by a product no relation says (deform_conv2d's offset: 2 * kh * kw channels)
    // rejects every size drawn anew: its tries keep the example's sizes and vary the rest (issue 52)
    ExampleGenerator kept = new ExampleGenerator(schema("tied_ops::weighted_cat"),
        new Example("e", List.of(tensor(3), tensor(4), tensor(7)), Map.of()), Vary.NONE).withSizesKept();
    assertEquals(Map.of(), kept.edgeCases());
    for (long seed = 0; seed < 30; seed++) {
      Example e = kept.generate(Choices.random(seed));
      assertEquals(List.of(3L, 4L, 7L), List.of(size(e, 0, 0), size(e, 1, 0), size(e, 2, 0)), e.toString());
    }
    assertEquals(true, kept.excluding(Map.of(), java.util.Set.of()).keepsSizes(), "kept by the generators made from it");
  }

  @Test
  void anInputOneRowLongerThanAnotherAndALengthThatIsASizePlusAnIntArgument() throws Exception {
    ExampleGenerator offset = new ExampleGenerator(schema("tied_ops::weighted_cat"),
        new Example("e", List.of(tensor(4, 3), tensor(5), tensor(9)), Map.of()), Vary.NONE);
    assertEquals(List.of("b.size(0) = a.size(0) + 1", "w.size(0) = a.size(0) + b.size(0)"),
        offset.relationCandidates().stream().map(SizeRelation::text).toList(), "each size a target once, sources first");
    // prefix_sums(Tensor x, int n) with two more int arguments by keyword: len = x.size(0) + pad
    Map<String, SpecValue> ints = new LinkedHashMap<>();
    ints.put("pad", new SpecValue(2L, "-"));
    ints.put("len", new SpecValue(6L, "-"));
    ExampleGenerator plain = new ExampleGenerator(schema("tied_ops::prefix_sums"), new Example("e", List.of(tensor(4)), ints),
        new Vary(Map.of("pad", new Vary.Range(true, 0, 9)), List.of(), false));
    List<SizeRelation> found = plain.relationCandidates();
    assertEquals(List.of("len = x.size(0) + pad"), found.stream().map(SizeRelation::text).toList());
    ExampleGenerator gen = plain.withRelations(found);
    for (long seed = 0; seed < 30; seed++) {
      Example e = gen.generate(Choices.random(seed));
      long pad = (Long) e.kwargs().get("pad").value();
      assertEquals(size(e, 0, 0) + pad, (Long) e.kwargs().get("len").value(), e.toString());
    }
  }

  /**
   * An int equal to a size of 2 or more, or one off it, is a candidate like any relation (issue 52): norm = 2 beside
   * a batch of 2, K = 4 beside a row of 3. It is never tied on the example's say-so: every try, tied or untied,
   * leaves it as the example has it, unless the generator keeps the relation (the kernel was found to need it).
   */
  @Test
  void anIntEqualToASizeIsACandidateAndStaysAsTheExampleHasItUnlessKept() throws Exception {
    ExampleGenerator plain = new ExampleGenerator(schema("tied_ops::prefix_norms"),
        new Example("e", List.of(tensor(2, 3), tensor(2), new SpecValue(2L, "-"), new SpecValue(4L, "-")), Map.of()), Vary.NONE);
    // K = 4 is a sum of the two sizes 2 before it is x.size(1) + 1: the first relation of each target is probed
    assertEquals(List.of("K = x.size(0) + scale.size(0)", "norm = x.size(0)", "x.size(1) = scale.size(0) + 1"),
        plain.relationCandidates().stream().map(SizeRelation::text).toList());
    for (long seed = 0; seed < 60; seed++) {
      Example e = plain.generate(Choices.random(seed));
      assertEquals(List.of(2L, 4L), List.of((Long) e.args().get(2).value(), (Long) e.args().get(3).value()), e.toString());
    }
    ExampleGenerator prefix = new ExampleGenerator(schema("tied_ops::prefix_sums"),
        new Example("e", List.of(tensor(4), new SpecValue(5L, "-")), Map.of()), Vary.NONE);
    List<SizeRelation> one = prefix.relationCandidates();
    assertEquals(List.of("n = x.size(0) + 1"), one.stream().map(SizeRelation::text).toList());
    ExampleGenerator kept = prefix.withRelations(one);
    for (long seed = 0; seed < 60; seed++) {
      Choices c = Choices.random(seed);
      Example e = kept.generate(c);
      assertEquals(size(e, 0, 0) + 1, (Long) e.args().get(1).value(), "tied or untied, n follows x: " + e);
      assertEquals(5L, (Long) prefix.generate(Choices.random(seed)).args().get(1).value(), "not kept, n stays 5");
    }
    // the two probes' draws: x of 4 as 9, then as 6; broken by one more, then by one less
    assertEquals(List.of(9L, 10L), List.of(size(kept.generate(Choices.replay(prefix.freshSizes())), 0, 0),
        (Long) kept.generate(Choices.replay(prefix.freshSizes())).args().get(1).value()));
    Example again = prefix.withRelations(List.of(one.get(0).brokenBy(-1))).generate(Choices.replay(prefix.freshSizesAgain()));
    assertEquals(List.of(6L, 6L), List.of(size(again, 0, 0), (Long) again.args().get(1).value()));
  }
}
