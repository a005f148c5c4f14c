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

/**
 * Two calls on equal inputs give bitwise-equal outputs; for an op tagged {@code nondeterministic_seeded},
 * two calls each started from the same seed of torch's generators ({@link OpCall#seeded}). An op may opt
 * out in the spec with a reason.
 */
public final class DeterminismCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "determinism";

  public DeterminismCheck() {
    super(Declaration.error(ID, "two calls on equal inputs give bitwise-equal outputs")
        .requires(KernelErrorCheck.ID)
        .onGeneratedInputs());
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample first = OpCall.bind(s, s.device());
    List<OpCall.Output> a = OpCall.observed(s, first, OpCall.call(s, first));
    BoundExample second = OpCall.bind(s, s.device());
    List<OpCall.Output> b = OpCall.observed(s, second, OpCall.call(s, second));
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
    return OpCall.seeded(s)
        ? Verdict.passed(Fact.of("outputs compared", a.size()), seededFact(s))
        : Verdict.passed(Fact.of("outputs compared", a.size()));
  }

  private static Fact seededFact(Subject s) {
    return Fact.of("seeded", "torch.manual_seed(" + s.seed() + ") before each call: the op is tagged "
        + OpTags.of(s).describe(OpTags.NONDETERMINISTIC_SEEDED));
  }

  private static Verdict fail(Subject s, BoundExample ex, String butWas, Cause cause, List<Heatmap> maps) {
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
