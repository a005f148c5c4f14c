package dev.opcheck4j.checks.determinism;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Heatmap;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorCopies;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * Two calls on equal inputs give bitwise-equal outputs; for an op tagged {@code nondeterministic_seeded},
 * two calls each started from the same seed of torch's generators ({@link OpCall#seeded}); for an op the
 * example passes a generator, two calls each passed one seeded alike while torch's default generator starts
 * from two different seeds ({@link OpCall#givesGenerator}). An op may opt out in the spec with a reason.
 */
public final class DeterminismCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "determinism";
  /** The key of the fact that says how a nondeterministic_seeded op was seeded before each call. */
  public static final String SEEDED = "seeded";
  /** The key of the fact that says how the generators passed to the op were seeded. */
  public static final String GENERATOR = "generator";
  /**
   * The most generated inputs it gets per op and device: on every corpus here its findings on generated inputs came
   * by the 22nd try, and it is the costliest check on them after generation itself (docs/performance.md, "What each
   * check costs and finds on generated inputs").
   */
  static final int DETERMINISM_TRIES = 25;

  public DeterminismCheck() {
    super(Declaration.error(ID, "two calls on equal inputs give bitwise-equal outputs")
        .requires(KernelErrorCheck.ID)
        .onGeneratedInputs(DETERMINISM_TRIES));
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample first = OpCall.bind(s, s.device());
    // an op passed a generator draws from it alone: each call gets one seeded alike (a binding makes a new
    // one), and torch's default generator starts from another seed in each, which such an op never sees
    boolean given = OpCall.givesGenerator(first);
    List<OpCall.Output> a = OpCall.observed(s, first,
        given ? OpCall.call(s, first, OptionalLong.of(s.seed())) : OpCall.call(s, first));
    BoundExample second = OpCall.bind(s, s.device());
    List<OpCall.Output> b = OpCall.observed(s, second,
        given ? OpCall.call(s, second, OptionalLong.of(s.seed() + 1)) : OpCall.call(s, second));
    if (a.isEmpty()) {
      return Verdict.skipped("the op returns no tensor and writes no (a!) argument: nothing to compare");
    }
    for (int i = 0; i < a.size(); i++) {
      var x = a.get(i).tensor();
      var y = b.get(i).tensor();
      long[] xs = x.sizes().vec().get();
      if (!Arrays.equals(xs, y.sizes().vec().get())) {
        return fail(s, first, a.get(i).label() + " sizes " + Arrays.toString(xs) + " then "
            + Arrays.toString(y.sizes().vec().get()), new Cause.MetadataMismatch(a.get(i).label(), "sizes"), List.of());
      }
      var diff = TensorCopies.bitwiseDifference(x, y);
      if (diff.isPresent()) {
        // bitwise: every element that is not the same bits is marked
        Heatmap map = ValueComparison.differenceMap(a.get(i).label(), xs, TensorCopies.doubles(x), TensorCopies.doubles(y),
            new OpSpec.Tolerance(0, 0));
        return fail(s, first, a.get(i).label() + ": " + diff.get() + " between two calls",
            new Cause.ValueMismatch(a.get(i).label()), List.of(map));
      }
    }
    if (given) {
      return Verdict.passed(Fact.of("outputs compared", a.size()), generatorFact(s, first));
    }
    return OpCall.seeded(s)
        ? Verdict.passed(Fact.of("outputs compared", a.size()), seededFact(s))
        : Verdict.passed(Fact.of("outputs compared", a.size()));
  }

  private static Fact seededFact(Subject s) {
    return Fact.of(SEEDED, "torch.manual_seed(" + s.seed() + ") before each call: the op is tagged "
        + OpTags.of(s).describe(OpTags.NONDETERMINISTIC_SEEDED));
  }

  /** What the two calls of an op passed a generator were given. */
  private static Fact generatorFact(Subject s, BoundExample ex) {
    return Fact.of(GENERATOR, "each call passed a generator seeded alike (" + String.join(", ", generators(s, ex))
        + "); torch's default generator started from seed " + s.seed() + ", then " + (s.seed() + 1));
  }

  private static List<String> generators(Subject s, BoundExample ex) {
    List<String> out = new java.util.ArrayList<>();
    for (int i = 0; i < ex.values().size(); i++) {
      if (ex.values().get(i).isGenerator()) {
        out.add("'" + s.op().schema().arguments().get(i).name() + "' seed " + ex.values().get(i).toGenerator().current_seed());
      }
    }
    return out;
  }

  private static Verdict fail(Subject s, BoundExample ex, String butWas, Cause cause, List<Heatmap> maps) {
    if (OpCall.givesGenerator(ex)) {
      return Verdict.failed(Finding.of(
          "bitwise-equal outputs from two calls on equal inputs, each passed a generator seeded alike",
          butWas,
          "an op passed a generator draws its random numbers from it alone: pass it on to every random op the"
              + " kernel calls (aten::bernoulli(p, generator)), and use torch's default generator only when it is"
              + " None; remove any other hidden state (static counters, uninitialized memory)",
          cause).withHeatmaps(maps), OpCall.exampleFact(s, ex), generatorFact(s, ex));
    }
    if (OpCall.seeded(s)) {
      return Verdict.failed(Finding.of(
          "bitwise-equal outputs from two calls on equal inputs, each started from the same seed",
          butWas,
          "a nondeterministic_seeded op may vary only by what it draws from torch's generator: remove the"
              + " other hidden state (static counters, uninitialized memory, unordered parallel reductions, a"
              + " generator of its own)",
          cause).withHeatmaps(maps), OpCall.exampleFact(s, ex), seededFact(s));
    }
    return Verdict.failed(Finding.of(
        "bitwise-equal outputs from two calls on equal inputs",
        butWas,
        "remove hidden state (static counters, uninitialized memory, unordered parallel reductions); an op"
            + " that draws from torch's generator on purpose is tagged nondeterministic_seeded (then it is"
            + " compared under one seed); or opt out in the spec: \"skip\": [\"determinism\"] with a \"why\"",
        cause).withHeatmaps(maps), OpCall.exampleFact(s, ex));
  }
}
