package dev.opcheck4j.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.fake.FakeMetadataCheck;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.Operator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExampleGeneratorTests {

  static OpSpec entry(String spec, String op) throws Exception {
    SpecFile f = SpecReader.read(NativeOps.spec(spec));
    return f.ops().stream().filter(o -> o.op().equals(op)).findFirst().orElseThrow();
  }

  static Operator op(String lib, String name) throws Exception {
    return OpLibrary.load(NativeOps.lib(lib)).op(name);
  }

  static List<Long> shape(SpecValue tensor) {
    return tensor.object().get("tensor").list().stream().map(v -> (Long) v.value()).toList();
  }

  static String field(SpecValue tensor, String key) {
    return (String) tensor.object().get(key).value();
  }

  @Test
  void sizesAndDtypesThatMatchedInTheExampleStillMatch() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::mul_add");
    ExampleGenerator gen = new ExampleGenerator(op("my_ops", "my_ops::mul_add").schema(), spec.examples().get(0), spec.vary());
    int untied = 0;
    for (long seed = 0; seed < 200; seed++) {
      Choices c = Choices.random(seed);
      Example e = gen.generate(c);
      if (c.sequence().get(0) == ExampleGenerator.UNTIED) {
        untied++;
        continue;
      }
      assertEquals(shape(e.args().get(0)), shape(e.args().get(1)));
      assertEquals(field(e.args().get(0), "dtype"), field(e.args().get(1), "dtype"));
      assertEquals(2, shape(e.args().get(0)).size(), "rank never changes");
      assertTrue(shape(e.args().get(0)).get(0) <= 9 && shape(e.args().get(0)).get(1) <= 7, "sizes within 0..2s+1");
      assertEquals(0.5, ((Number) e.args().get(2).value()).doubleValue(), "non-tensor arguments stay without a vary range");
    }
    assertTrue(untied > 20 && untied < 70, "about one try in five unties sizes: " + untied);
  }

  @Test
  void aTiedGeneratorDrawsTiedSizesWhereTheChoiceSaysUntiedAndTheSameInputElsewhere() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::mul_add");
    Example ex = new Example("ex", List.of(tensor(3, 4), tensor(3, 4), new SpecValue(0.5, "-")), Map.of());
    ExampleGenerator gen = new ExampleGenerator(op("my_ops", "my_ops::mul_add").schema(), ex, spec.vary());
    ExampleGenerator tied = gen.tied();
    assertEquals(List.of("sizes 0", "sizes 1"), List.copyOf(tied.edgeCases().keySet()), "no untied edge case");
    int untied = 0;
    for (long seed = 0; seed < 100; seed++) {
      Choices c = Choices.random(seed);
      Example before = gen.generate(c);
      Choices again = Choices.random(seed);
      Example after = tied.generate(again);
      assertEquals(shape(after.args().get(0)), shape(after.args().get(1)), "seed " + seed);
      if (gen.drewUntied(c.sequence())) {
        untied++;
        assertTrue(!tied.drewUntied(again.sequence()), "a tied generator never draws untied sizes");
      } else {
        assertEquals(before, after, "a try that drew tied sizes is the same input from either generator");
      }
    }
    assertTrue(untied > 5, "some tries would have drawn untied sizes: " + untied);
  }

  @Test
  void untiedTriesDrawEveryDimensionOnItsOwnSoASquareExampleGivesNonSquareVariants() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::mul_add");
    Example square = new Example("square", List.of(tensor(3, 3), tensor(3, 3), new SpecValue(0.5, "-")), Map.of());
    ExampleGenerator gen = new ExampleGenerator(op("my_ops", "my_ops::mul_add").schema(), square, spec.vary());
    Map<String, List<Long>> edges = gen.edgeCases();
    assertEquals(List.of("sizes 0", "sizes 1", "sizes untied"), List.copyOf(edges.keySet()));
    Example untied = gen.generate(Choices.replay(edges.get("sizes untied")));
    assertEquals(List.of(1L, 2L), shape(untied.args().get(0)));
    assertEquals(List.of(1L, 2L), shape(untied.args().get(1)));
    boolean different = false;
    for (long seed = 0; seed < 100 && !different; seed++) {
      Example e = gen.generate(Choices.random(seed));
      different = !shape(e.args().get(0)).equals(shape(e.args().get(1)));
    }
    assertTrue(different, "some untied try gives the two arguments different shapes");
  }

  @Test
  void anIntListEqualToATensorsShapeFollowsItsGeneratedShape() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::mul_add");
    SpecValue shapeArg = new SpecValue(List.of(new SpecValue(3L, "-"), new SpecValue(4L, "-")), "-");
    Example ex = new Example("reshape", List.of(tensor(3, 4), tensor(3, 4), new SpecValue(0.5, "-")), Map.of("shape", shapeArg));
    dev.opcheck4j.torch.OpSchema schema = op("my_ops", "my_ops::mul_add").schema();
    ExampleGenerator gen = new ExampleGenerator(schema, ex, spec.vary());
    for (long seed = 0; seed < 50; seed++) {
      Example e = gen.generate(Choices.random(seed));
      List<Long> got = e.kwargs().get("shape").list().stream().map(v -> (Long) v.value()).toList();
      assertEquals(shape(e.args().get(0)), got);
    }
  }

  @Test
  void theDeclaredDomainAndDiscoveredRejectionsBoundLayoutsAndDtypes() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::mul_add");
    dev.opcheck4j.torch.OpSchema schema = op("my_ops", "my_ops::mul_add").schema();
    dev.opcheck4j.spec.Domain contiguous = new dev.opcheck4j.spec.Domain(List.of("contiguous"), List.of("float32"), List.of());
    ExampleGenerator declared = new ExampleGenerator(schema, spec.examples().get(0), Vary.NONE, contiguous, Map.of(), java.util.Set.of());
    ExampleGenerator discovered = new ExampleGenerator(schema, spec.examples().get(0), Vary.NONE,
        dev.opcheck4j.spec.Domain.ANY, Map.of("a", java.util.Set.of("transposed", "strided", "offset")), java.util.Set.of("float64"));
    for (long seed = 0; seed < 100; seed++) {
      Example d = declared.generate(Choices.random(seed));
      assertEquals("contiguous", field(d.args().get(0), "layout"));
      assertEquals("contiguous", field(d.args().get(1), "layout"));
      assertEquals("float32", field(d.args().get(0), "dtype"));
      Example x = discovered.generate(Choices.random(seed));
      assertEquals("contiguous", field(x.args().get(0), "layout"), "'a' only contiguous");
      assertTrue(!field(x.args().get(1), "dtype").equals("float64"), "the rejected float64 is never drawn");
    }
  }

  /** Issue 32: every declared dtype is drawn, bool and integer ones too, and an integer op's tensors take them. */
  @Test
  void everyDeclaredDtypeIsDrawnBoolAndIntegerIncluded() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::mul_add");
    dev.opcheck4j.torch.OpSchema schema = op("my_ops", "my_ops::mul_add").schema();
    List<String> declared = List.of("float32", "bool", "int32");
    ExampleGenerator floats = new ExampleGenerator(schema, spec.examples().get(0), Vary.NONE,
        new dev.opcheck4j.spec.Domain(List.of(), declared, List.of()), Map.of(), java.util.Set.of());
    assertEquals(Map.of("float32", List.of("bool", "int32")), floats.otherDtypes());
    java.util.Set<String> drawn = new java.util.TreeSet<>();
    for (long seed = 0; seed < 200; seed++) {
      drawn.add(field(floats.generate(Choices.random(seed)).args().get(0), "dtype"));
    }
    assertEquals(new java.util.TreeSet<>(declared), drawn);
    // an example with no floating-point tensor: its tensors are the data the declared dtypes are about
    Map<String, SpecValue> int64 = new java.util.LinkedHashMap<>(tensor(4, 3).object());
    int64.put("dtype", new SpecValue("int64", "-"));
    SpecValue t = new SpecValue(int64, "-");
    Example ints = new Example("ints", List.of(t, t, t), Map.of());
    ExampleGenerator integers = new ExampleGenerator(schema, ints, Vary.NONE,
        new dev.opcheck4j.spec.Domain(List.of(), List.of("int64", "int32", "bool"), List.of()), Map.of(), java.util.Set.of());
    assertEquals(Map.of("int64", List.of("int32", "bool")), integers.otherDtypes());
  }

  static SpecValue tensor(long... dims) {
    List<SpecValue> ds = new java.util.ArrayList<>();
    for (long d : dims) {
      ds.add(new SpecValue(d, "-"));
    }
    return new SpecValue(Map.of("tensor", new SpecValue(ds, "-")), "-");
  }

  @Test
  void theEdgeCasesComeFirstSizesZeroThenOne() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::mul_add");
    ExampleGenerator gen = new ExampleGenerator(op("my_ops", "my_ops::mul_add").schema(), spec.examples().get(0), spec.vary());
    Example zero = gen.generate(Choices.replay(List.copyOf(gen.edgeCases().values()).get(0)));
    assertEquals(List.of(0L, 0L), shape(zero.args().get(0)));
    assertEquals("contiguous", field(zero.args().get(0), "layout"));
    assertEquals("float32", field(zero.args().get(0), "dtype"));
    assertEquals(List.of(1L, 1L), shape(gen.generate(Choices.replay(List.copyOf(gen.edgeCases().values()).get(1))).args().get(0)));
  }

  @Test
  void tensorsWithExplicitValuesKeepTheirShapeAndPinTheirSizes() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::warp_perspective");
    ExampleGenerator gen = new ExampleGenerator(op("my_ops", "my_ops::warp_perspective").schema(), spec.examples().get(0), spec.vary());
    for (long seed = 0; seed < 50; seed++) {
      Example e = gen.generate(Choices.random(seed));
      assertEquals(List.of(3L, 3L), shape(e.args().get(1)));
      assertEquals("float32", field(e.args().get(0), "dtype"), "vary.dtype restricts dtypes");
    }
  }

  @Test
  void rangedArgumentsAreDrawnWithinTheirRange() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::crop");
    Vary vary = new Vary(Map.of("box", new Vary.Range(true, 0, 5)), List.of(), false);
    ExampleGenerator gen = new ExampleGenerator(op("my_ops", "my_ops::crop").schema(), spec.examples().get(0), vary);
    for (long seed = 0; seed < 50; seed++) {
      for (SpecValue v : gen.generate(Choices.random(seed)).args().get(1).list()) {
        long x = (Long) v.value();
        assertTrue(0 <= x && x <= 5, "box element " + x);
      }
    }
  }

  @Test
  void extremesMixSpecialValuesIntoTensors() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::mul_add");
    Vary vary = new Vary(Map.of(), List.of(), true);
    ExampleGenerator gen = new ExampleGenerator(op("my_ops", "my_ops::mul_add").schema(), spec.examples().get(0), vary);
    boolean sawNonFinite = false;
    for (long seed = 0; seed < 200 && !sawNonFinite; seed++) {
      SpecValue values = gen.generate(Choices.random(seed)).args().get(0).object().get("values");
      if (values != null) {
        sawNonFinite = values.list().stream().anyMatch(v -> !Double.isFinite(v.number()));
      }
    }
    assertTrue(sawNonFinite, "NaN or inf among 200 generated inputs");
  }

  @Test
  void aRandomFailureShrinksToTheSmallestFailingShape() throws Exception {
    Operator op = op("bad_ops", "bad_ops::meta_hardcoded");
    OpSpec spec = entry("bad/bad_ops.json", "bad_ops::meta_hardcoded");
    ExampleGenerator gen = new ExampleGenerator(op.schema(), spec.examples().get(0), spec.vary());
    FakeMetadataCheck check = new FakeMetadataCheck();
    java.util.function.Predicate<Choices> fails = c -> {
      try {
        Example e = gen.generate(c);
        return check.evaluateExample(new Subject(null, op, spec, Device.CPU, e, 1L)).outcome() == Outcome.FAILED;
      } catch (Exception ex) {
        return false;
      }
    };
    for (long seed = 0; ; seed++) {
      Choices c = Choices.random(seed);
      Example e = gen.generate(c);
      List<Long> shape = shape(e.args().get(0));
      if (shape.get(0) > 2 && shape.get(1) > 2 && !shape.equals(List.of(4L, 3L))
          && fails.test(Choices.replay(c.sequence()))) {
        Shrinker.Result r = new Shrinker(fails, 500).shrink(c.sequence());
        Example minimal = gen.generate(Choices.replay(r.sequence()));
        assertEquals(List.of(0L, 0L), shape(minimal.args().get(0)), "each dimension as small as it can be");
        assertEquals("contiguous", field(minimal.args().get(0), "layout"));
        assertEquals("float32", field(minimal.args().get(0), "dtype"));
        assertTrue(r.steps() > 0, r.toString());
        return;
      }
    }
  }

  /** The first random try of mul_add whose {@code a} is laid out as {@code layout}. */
  private static Choices firstWithLayout(ExampleGenerator gen, String layout) {
    for (long seed = 0; ; seed++) {
      Choices c = Choices.random(seed);
      Example e = gen.generate(c);
      if (field(e.args().get(0), "layout").equals(layout) && shape(e.args().get(0)).stream().allMatch(d -> d > 1)) {
        return c;
      }
    }
  }

  private static long numel(SpecValue tensor) {
    return shape(tensor).stream().reduce(1L, (x, y) -> x * y);
  }

  @Test
  void shrinkingDropsALayoutTheFailureDoesNotNeed() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::mul_add");
    ExampleGenerator gen = new ExampleGenerator(op("my_ops", "my_ops::mul_add").schema(), spec.examples().get(0), spec.vary());
    for (String layout : List.of("offset", "transposed", "strided")) {
      Choices failing = firstWithLayout(gen, layout);
      // fails on any non-empty a, whatever its layout
      Shrinker.Result r = new Shrinker(c -> numel(gen.generate(c).args().get(0)) > 0, 500).shrink(failing.sequence());
      Example minimal = gen.generate(Choices.replay(r.sequence()));
      assertEquals("contiguous", field(minimal.args().get(0), "layout"), layout + ": " + minimal.args());
      assertEquals("contiguous", field(minimal.args().get(1), "layout"), layout + ": " + minimal.args());
      assertEquals(List.of(1L, 1L), shape(minimal.args().get(0)), String.valueOf(minimal.args()));
    }
  }

  @Test
  void shrinkingKeepsALayoutTheFailureNeeds() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::mul_add");
    ExampleGenerator gen = new ExampleGenerator(op("my_ops", "my_ops::mul_add").schema(), spec.examples().get(0), spec.vary());
    Choices failing = firstWithLayout(gen, "transposed");
    // fails only on a transposed a with more than one row and column (a kernel that ignores strides)
    Shrinker.Result r = new Shrinker(c -> {
      SpecValue a = gen.generate(c).args().get(0);
      return field(a, "layout").equals("transposed") && shape(a).stream().allMatch(d -> d > 1);
    }, 500).shrink(failing.sequence());
    Example minimal = gen.generate(Choices.replay(r.sequence()));
    assertEquals("transposed", field(minimal.args().get(0), "layout"), String.valueOf(minimal.args()));
    assertEquals(List.of(2L, 2L), shape(minimal.args().get(0)), "the sizes still shrink: " + minimal.args());
    assertEquals("contiguous", field(minimal.args().get(1), "layout"), "b's layout is not needed: " + minimal.args());
  }

  @Test
  void aFloatExampleDrawsEveryAcceptedDtypeAndItsOwnFamilyMostOften() throws Exception {
    OpSpec spec = entry("my_ops.json", "my_ops::mul_add");
    ExampleGenerator gen = new ExampleGenerator(op("my_ops", "my_ops::mul_add").schema(), spec.examples().get(0), spec.vary());
    Map<String, Integer> drawn = new java.util.TreeMap<>();
    for (long seed = 0; seed < 2000; seed++) {
      Example e = gen.generate(Choices.random(seed));
      String dtype = field(e.args().get(0), "dtype");
      drawn.merge(dtype, 1, Integer::sum);
      assertEquals(dtype, field(e.args().get(1), "dtype"), "a and b shared a dtype in the example and still do");
      if (!dtype.startsWith("float") && !dtype.equals("bfloat16")) {
        assertTrue(!e.args().get(0).object().containsKey("requires_grad"), "no gradient on " + dtype);
      }
    }
    assertEquals(java.util.Set.of("float32", "float64", "float16", "bfloat16", "bool", "uint8", "int8", "int16", "int32", "int64"),
        drawn.keySet(), drawn.toString());
    assertTrue(drawn.get("float32") + drawn.get("float64") > 1300, "the family three tries in four: " + drawn);
    // what the kernel rejects (found by domain discovery) is not drawn, and the all-zero try is the example's own
    ExampleGenerator known = gen.excluding(Map.of(), java.util.Set.of("bool", "int8"));
    for (long seed = 0; seed < 500; seed++) {
      String dtype = field(known.generate(Choices.random(seed)).args().get(0), "dtype");
      assertTrue(!dtype.equals("bool") && !dtype.equals("int8"), dtype);
    }
    assertEquals("float32", field(gen.generate(Choices.replay(List.of())).args().get(0), "dtype"));
  }
  @Test
  void noneInAnyPositionIsAnArgumentLikeAnyOtherInTriesAndTheirBlame() {
    // issue 28: an example whose trailing Tensor? arguments were null aborted the run as soon as a generated
    // try was rejected (the blame compared the example's None with the try's by calling a method on it)
    dev.opcheck4j.torch.OpSchema schema = dev.opcheck4j.torch.SchemaText.parse(
        "t::affine(Tensor x, Tensor? weight=None, Tensor? bias=None, *, Tensor? mask=None) -> Tensor");
    SpecValue none = new SpecValue(null, "-");
    java.util.LinkedHashMap<String, SpecValue> kwargs = new java.util.LinkedHashMap<>();
    kwargs.put("mask", none);
    for (Example example : List.of(
        new Example("trailing", List.of(tensor(2, 3), none, none), kwargs),
        new Example("middle", List.of(tensor(2, 3), none, tensor(3)), Map.of()),
        new Example("last", List.of(tensor(2, 3), tensor(3), none), kwargs))) {
      ExampleGenerator gen = new ExampleGenerator(schema, example, dev.opcheck4j.spec.Vary.NONE);
      for (long seed = 0; seed < 50; seed++) {
        Example tried = gen.generate(Choices.random(seed));
        for (int i = 0; i < example.args().size(); i++) {
          assertEquals(example.args().get(i).isNull(), tried.args().get(i).isNull(), example.ref() + " argument " + i);
        }
        assertTrue(tried.kwargs().getOrDefault("mask", none).isNull(), example.ref());
        List<String> changed = gen.changedArguments(tried);
        assertTrue(!changed.contains("mask") && (example.args().get(1).isNull() ? !changed.contains("weight")
            : true) && (example.args().get(2).isNull() ? !changed.contains("bias") : true), changed.toString());
        for (String arg : changed) {
          assertEquals(List.of(), gen.changedArguments(gen.revert(tried, arg)).stream().filter(arg::equals).toList());
        }
      }
      assertEquals(List.of(), gen.changedArguments(example), example.ref());
    }
  }
}
