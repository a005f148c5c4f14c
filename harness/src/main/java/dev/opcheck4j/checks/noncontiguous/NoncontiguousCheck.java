package dev.opcheck4j.checks.noncontiguous;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Heatmap;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.determinism.DeterminismCheck;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.generate.TensorText;
import dev.opcheck4j.spec.OpSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * For each contiguous tensor input not declared (a!), a non-contiguous copy with the same values
 * (transposed, strided, offset; only the layouts the spec's domain allows) gives the same outputs
 * within tolerance. A kernel that raises on a non-contiguous input is outside its domain, not wrong:
 * that variant is not compared here, and {@code noncontiguous.rejected} warns about it once. It runs
 * only where determinism passed: when two contiguous calls already differ, a difference after re-laying
 * out says nothing about layout, and one cause gives one finding (determinism's).
 */
public final class NoncontiguousCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "noncontiguous";
  /**
   * The most generated inputs it gets per op and device: on every corpus here its findings on generated inputs came
   * by the 5th try (the size edge cases), and it costs the most per input of the value checks, as it builds and
   * runs a re-laid-out copy of each input (docs/performance.md, "What each check costs and finds on generated
   * inputs").
   */
  static final int NONCONTIGUOUS_TRIES = 20;

  public NoncontiguousCheck() {
    super(Declaration.error(ID, "non-contiguous inputs with the same values give the same outputs")
        .requires(KernelErrorCheck.ID, DeterminismCheck.ID)
        .onGeneratedInputs(NONCONTIGUOUS_TRIES));
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample base = OpCall.bind(s, s.device());
    List<OpCall.Output> expected = OpCall.observed(s, base, OpCall.call(s, base));
    if (expected.isEmpty()) {
      return Verdict.skipped("the op returns no tensor and writes no (a!) argument: nothing to compare");
    }
    int tried = 0;
    List<String> rejected = new ArrayList<>();
    for (int k = 0; k < base.tensors().size(); k++) {
      BoundExample.TensorInput in = base.tensors().get(k);
      boolean topLevel = base.values().get(in.argIndex()).isTensor();
      if (!topLevel || s.op().schema().arguments().get(in.argIndex()).isWrite() || !in.tensor().is_contiguous()) {
        continue;
      }
      for (String layout : TensorCopies.noncontiguousLayouts(in.tensor())) {
        if (!s.spec().domain().allowsLayout(layout)) {
          continue;
        }
        BoundExample variant = relaidOut(s, k, layout);
        Tensor moved = new Tensor(variant.values().get(in.argIndex()).toTensor());
        Fact example = Fact.of("example", s.example().ref() + "  " + in.argument() + " " + layout + ": "
            + TensorText.describe(moved));
        List<OpCall.Output> got;
        try {
          got = OpCall.observed(s, variant, OpCall.call(s, variant));
        } catch (OpCall.KernelError e) {
          rejected.add("'" + in.argument() + "' " + layout);
          continue;
        }
        tried++;
        Difference diff = difference(expected, got, s);
        if (diff != null) {
          return Verdict.failed(Finding.of("the same outputs with '" + in.argument() + "' " + layout, diff.text(), hint(),
              diff.cause()).withHeatmaps(diff.heatmaps()), example);
        }
      }
    }
    if (tried == 0) {
      return Verdict.skipped(rejected.isEmpty()
          ? "no contiguous tensor input that is not (a!) to re-lay out" + (s.spec().domain().layouts().isEmpty() ? "" : " in the spec's domain")
          : "the kernel raised on every non-contiguous variant (" + String.join(", ", rejected)
              + "): outside its domain, see " + RejectedLayoutCheck.ID);
    }
    if (rejected.isEmpty()) {
      return Verdict.passed(Fact.of("variants compared", tried));
    }
    return Verdict.passed(Fact.of("variants compared", tried),
        Fact.of("not compared", String.join(", ", rejected) + " (the kernel raised: outside its domain)"));
  }

  /**
   * A fresh binding of the subject's example with its {@code k}-th tensor input (a top-level
   * argument) re-laid out as {@code layout}, with the same values.
   */
  static BoundExample relaidOut(Subject s, int k, String layout) throws Exception {
    BoundExample fresh = OpCall.bind(s, s.device());
    BoundExample.TensorInput in = fresh.tensors().get(k);
    Tensor moved = TensorCopies.relayout(in.tensor(), layout);
    List<IValue> values = new ArrayList<>(fresh.values());
    values.set(in.argIndex(), new IValue(moved));
    return new BoundExample(values, fresh.tensors(), fresh.description());
  }

  private static String hint() {
    return "call contiguous() on inputs before reading raw data, or index with strides and storage offset";
  }

  /** How an output of a variant differs from the original's. */
  private record Difference(Cause cause, String text, List<Heatmap> heatmaps) {
    Difference(Cause cause, String text) {
      this(cause, text, List.of());
    }
  }

  private static Difference difference(List<OpCall.Output> expected, List<OpCall.Output> got, Subject s) {
    for (int i = 0; i < expected.size(); i++) {
      Tensor e = expected.get(i).tensor();
      Tensor g = got.get(i).tensor();
      long[] es = e.sizes().vec().get();
      if (!Arrays.equals(es, g.sizes().vec().get())) {
        return new Difference(new Cause.MetadataMismatch(expected.get(i).label(), "sizes"),
            expected.get(i).label() + " sizes " + Arrays.toString(g.sizes().vec().get()) + " instead of " + Arrays.toString(es));
      }
      OpSpec.Tolerance tol = s.spec().tolerance().orElse(ValueComparison.defaultTolerance(e.scalar_type()));
      double[] de = TensorCopies.doubles(e);
      double[] dg = TensorCopies.doubles(g);
      int bad = 0;
      int worst = -1;
      double max = 0;
      for (int k = 0; k < de.length; k++) {
        double d = Math.abs(de[k] - dg[k]);
        // equal values are close, infinities included (inf - inf is NaN), as are NaNs at the same place
        boolean ok = de[k] == dg[k] || d <= tol.atol() + tol.rtol() * Math.abs(de[k]) || (Double.isNaN(de[k]) && Double.isNaN(dg[k]));
        if (!ok) {
          bad++;
          if (worst < 0 || d > max) {
            max = d;
            worst = k;
          }
        }
      }
      if (bad > 0) {
        return new Difference(new Cause.ValueMismatch(expected.get(i).label()), expected.get(i).label() + ": " + bad + " of " + de.length + " elements differ beyond atol "
            + tol.atol() + ", rtol " + tol.rtol() + "; max |diff| " + max + " at " + TensorText.index(es, worst)
            + " (" + dg[worst] + " instead of " + de[worst] + ")",
            List.of(ValueComparison.differenceMap(expected.get(i).label(), es, de, dg, tol)));
      }
    }
    return null;
  }
}
