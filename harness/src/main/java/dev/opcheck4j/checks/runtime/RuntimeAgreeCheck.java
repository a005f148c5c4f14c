package dev.opcheck4j.checks.runtime;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.baseline.BaselineValuesCheck;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.SchemaBaseline;
import dev.opcheck4j.torch.ValueBaseline;
import java.util.List;
import java.util.Optional;

/**
 * Each example gives the same outputs on every libtorch runtime of the run ({@code check --runtime
 * 2.10.0,2.13.0}), within the spec's tolerance: what the op gave on each runtime is recorded as a value
 * baseline records it (the same inputs, drawn from the run's seed), and each runtime's outputs are compared
 * with the oldest runtime's by {@code baseline.values}'s comparison. It compares runtimes, which no one
 * worker has, so it is never a unit of a plan: the run over the runtimes ({@code run/RuntimeRuns}) calls
 * {@link #agree} in the parent once every runtime ran.
 */
public final class RuntimeAgreeCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "runtime.agree";
  /** How many values of each side a failure shows. */
  private static final int SHOWN = 8;

  public RuntimeAgreeCheck() {
    super(Declaration.error(ID, "each example gives the same outputs on every runtime of the run, within tolerance")
        .requires(KernelErrorCheck.ID));
  }

  /** Never part of one runtime's plan: it compares runtimes (see the class comment). */
  @Override
  public boolean appliesWith(SchemaBaseline baseline) {
    return false;
  }

  @Override
  public Verdict evaluateExample(Subject s) {
    return Verdict.skipped("compares runtimes, not one worker's outputs: check --runtime with two runtimes or more");
  }

  /**
   * Whether {@code now}, what an example gave on libtorch {@code runtime}, is what it gave on {@code reference}
   * ({@code then}), within {@code tolerance} (the spec's, else the dtype's default).
   */
  public static Verdict agree(String reference, ValueBaseline.Recorded then, String runtime, ValueBaseline.Recorded now,
      Optional<OpSpec.Tolerance> tolerance) {
    String hint = "if the kernel relies on an aten default or behaviour that changed between libtorch " + reference
        + " and " + runtime + ", pin it (pass the argument explicitly); else declare the runtimes it supports in the"
        + " spec's \"runtimes\"";
    if (then.error() != null && now.error() != null) {
      return Verdict.skipped("the op raised on both runtimes: " + now.error());
    }
    if (then.error() != null || now.error() != null) {
      boolean raisedNow = now.error() != null;
      String raised = raisedNow ? now.error() : then.error();
      return Verdict.failed(Finding.of("the example runs on libtorch " + runtime + " as on " + reference,
          "it raised on " + (raisedNow ? runtime : reference) + " and ran on " + (raisedNow ? reference : runtime)
              + ": " + raised, hint, new Cause.Rejection(raised)));
    }
    if (then.outputs().size() != now.outputs().size()) {
      return Verdict.failed(Finding.of("the outputs it gave on libtorch " + reference,
          now.outputs().size() + " output tensors on " + runtime + " where " + reference + " gave " + then.outputs().size(),
          hint, new Cause.MetadataMismatch("outputs", "count")));
    }
    for (int i = 0; i < now.outputs().size(); i++) {
      ValueBaseline.Output a = then.outputs().get(i);
      ValueBaseline.Output b = now.outputs().get(i);
      Optional<ValueComparison.Mismatch> m = BaselineValuesCheck.compare(a, b, tolerance);
      if (m.isPresent()) {
        return Verdict.failed(m.get().finding("the outputs it gave on libtorch " + reference + ", within tolerance", hint)
            .with(Fact.of("on " + reference, shown(a)), Fact.of("on " + runtime, shown(b))));
      }
    }
    return Verdict.passed(Fact.of("outputs compared", now.outputs().size()), Fact.of("against libtorch", reference));
  }

  /** An output's first values (or its summary when it was recorded by summary), as a failure shows them. */
  private static String shown(ValueBaseline.Output o) {
    if (o.values().isEmpty()) {
      return o.label() + " " + o.dtype() + o.shape() + " min " + String.valueOf(o.summary().min()) + ", max "
          + String.valueOf(o.summary().max()) + ", mean " + String.valueOf(o.summary().mean());
    }
    List<String> first = o.values().stream().limit(SHOWN).map(String::valueOf).toList();
    return o.label() + " " + o.dtype() + o.shape() + " [" + String.join(", ", first)
        + (o.values().size() > SHOWN ? ", ..." : "") + "]";
  }
}
