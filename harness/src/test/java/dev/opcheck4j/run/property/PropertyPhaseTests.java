package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.Shrinker;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.OpLibrary;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Shrinking keeps the cause: a shrunk input must fail the same way as the one it came from. */
class PropertyPhaseTests {

  /** A kernel in plain Java: raises on a non-contiguous input first, then on float64. */
  static Verdict kernel(Example e) {
    for (SpecValue v : e.args()) {
      if (v.isObject() && v.object().containsKey("tensor")) {
        if (!"contiguous".equals(v.object().get("layout").value())) {
          return rejected("a must be contiguous");
        }
      }
    }
    for (SpecValue v : e.args()) {
      if (v.isObject() && "float64".equals(v.object().get("dtype").value())) {
        return rejected("a must be float32, got " + v.object().get("tensor").list().size() + "-d float64");
      }
    }
    return Verdict.passed();
  }

  static Verdict rejected(String message) {
    return Verdict.failed(Finding.of("accepted", "raised: " + message, "-", new Cause.Rejection(message)));
  }

  static String field(SpecValue tensor, String key) {
    return (String) tensor.object().get(key).value();
  }

  @Test
  void aNonContiguousRejectionShrinksToANonContiguousRejectionNeverToAFloat64One() throws Exception {
    var schema = OpLibrary.load(NativeOps.lib("my_ops")).op("my_ops::mul_add").schema();
    SpecValue t = new SpecValue(Map.of("tensor", new SpecValue(List.of(new SpecValue(3L, "-"), new SpecValue(4L, "-")), "-")), "-");
    Example ex = new Example("ex", List.of(t, t, new SpecValue(0.5, "-")), Map.of());
    ExampleGenerator gen = new ExampleGenerator(schema, ex, Vary.NONE);
    Function<Example, Verdict> judge = PropertyPhaseTests::kernel;
    for (long seed = 0; ; seed++) {
      Choices c = Choices.random(seed);
      Example e = gen.generate(c);
      boolean float64 = field(e.args().get(0), "dtype").equals("float64");
      boolean strided = !field(e.args().get(0), "layout").equals("contiguous");
      if (!float64 || !strided) {
        continue;
      }
      Verdict original = judge.apply(e);
      assertEquals(new Cause.Rejection("a must be contiguous"), original.finding().cause());
      Shrinker.Result r = new Shrinker(FailureShrinker.keepsCause(gen,
          x -> new Fate.Answered<>(new Answers.Checked(judge.apply(x)), 0), original), 300).shrink(c.sequence());
      Example minimal = gen.generate(Choices.replay(r.sequence()));
      Verdict v = judge.apply(minimal);
      assertEquals(Outcome.FAILED, v.outcome());
      assertEquals(new Cause.Rejection("a must be contiguous"), v.finding().cause(),
          "the shrunk input fails for the original's reason");
      assertEquals("float32", field(minimal.args().get(0), "dtype"), "float64 was not the cause, so it shrank away");
      assertTrue(r.steps() > 0);
      return;
    }
  }

  /**
   * A candidate in a crash class learned on the op (here: a float64 'a') is never sent to the kernel while
   * another finding shrinks, and an input judged once is not judged again.
   */
  @Test
  void aShrinkNeverJudgesAnInputOfALearnedCrashClassNorOneInputTwice() throws Exception {
    var schema = OpLibrary.load(NativeOps.lib("my_ops")).op("my_ops::mul_add").schema();
    SpecValue t = new SpecValue(Map.of("tensor", new SpecValue(List.of(new SpecValue(3L, "-"), new SpecValue(4L, "-")), "-")), "-");
    Example ex = new Example("ex", List.of(t, t, new SpecValue(0.5, "-")), Map.of());
    ExampleGenerator gen = new ExampleGenerator(schema, ex, Vary.NONE);
    java.util.function.Predicate<Example> crashClass = e -> field(e.args().get(0), "dtype").equals("float64");
    int[] skipped = {0};
    for (long seed = 0; ; seed++) {
      Choices c = Choices.random(seed);
      Example e = gen.generate(c);
      if (crashClass.test(e) || field(e.args().get(0), "layout").equals("contiguous")) {
        continue;
      }
      Verdict original = kernel(e);
      List<Example> judged = new java.util.ArrayList<>();
      Shrinker.Result r = new Shrinker(FailureShrinker.keepsCause(gen, x -> {
        judged.add(x);
        return new Fate.Answered<>(new Answers.Checked(kernel(x)), 0);
      }, original, x -> crashClass.test(x) && ++skipped[0] > 0), 300).shrink(c.sequence());
      assertTrue(r.steps() > 0);
      assertTrue(skipped[0] > 0, "the shrink met candidates of the class");
      assertTrue(judged.stream().noneMatch(crashClass), judged.toString());
      assertEquals(judged.size(), new java.util.HashSet<>(judged).size(), "each input judged once: " + judged);
      assertEquals(new Cause.Rejection("a must be contiguous"),
          kernel(gen.generate(Choices.replay(r.sequence()))).finding().cause());
      return;
    }
  }

  @Test
  void aRejectionIsTheSameCauseWhatEverItsSizesAndValuesButNotItsWords() {
    assertTrue(rejected("expected sizes [2, 3], got 5").sameFailure(rejected("expected sizes [0, 1], got 2")));
    assertTrue(!rejected("x must be float32").sameFailure(rejected("x must be contiguous")));
  }

  @Test
  void aMetadataMismatchIsTheSameCauseOnlyForTheSameOutputAndProperty() {
    Verdict sizes = Verdict.failed(Finding.of("e", "output 0 sizes [2, 3] on meta", "h",
        new Cause.MetadataMismatch("output 0", "sizes")));
    Verdict smaller = Verdict.failed(Finding.of("e", "output 0 sizes [0, 1] on meta", "h",
        new Cause.MetadataMismatch("output 0", "sizes")));
    Verdict strides = Verdict.failed(Finding.of("e", "output 0 strides [1] on meta", "h",
        new Cause.MetadataMismatch("output 0", "strides")));
    assertTrue(sizes.sameFailure(smaller));
    assertTrue(!sizes.sameFailure(strides));
  }

  @Test
  void aCheckNoGeneratedInputReachedIsSkippedWithTheReasonNotPassed() throws Exception {
    // narrow_domain accepts exactly 12 elements: at this seed every generated try is rejected, so no check ran on one
    var request = dev.opcheck4j.run.plan.RunRequest.builder().seed(20261122L).tries(20).jobs(1)
        .spec(NativeOps.spec("bad/bad_ops.json")).ops(List.of("bad_ops::narrow_domain"))
        .devices(List.of(dev.opcheck4j.torch.Device.CPU)).build();
    var report = dev.opcheck4j.run.Launcher.execute(request, dev.opcheck4j.api.RunListener.NONE).report();
    var generated = report.results().stream()
        .filter(r -> r.example().startsWith("generated") && r.check().equals("determinism")).toList();
    assertEquals(1, generated.size(), report.results().toString());
    assertEquals(Outcome.SKIPPED, generated.get(0).outcome(), generated.get(0).toString());
    assertEquals("no generated input reached this check: the cpu kernel rejected all 20 tries (see generate.domain)",
        generated.get(0).fact("reason").orElseThrow());
    assertTrue(report.results().stream().noneMatch(r -> r.outcome() == Outcome.PASSED
        && "0".equals(r.fact(Fact.INPUTS_CHECKED).orElse(null))), "nothing passes on no input");
  }
}
