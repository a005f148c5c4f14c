package dev.opcheck4j.checks.dtype;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.spec.OpSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * The other side of {@code dtype.declared}: a dtype the spec does not declare that the kernel accepts.
 * For each one, the example's data tensors are converted to it; when the kernel runs, its outputs are
 * compared with the kernel's on the same values in the example's own dtype. Equal, the dtype works but
 * is not listed (OpInfo's {@code test_dtypes} says "works but not listed"); different, the kernel
 * silently computes something else for a dtype it never claimed. Both are warnings: PyTorch's rules do
 * not make an undeclared dtype a defect.
 */
public final class UnlistedDtypeCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "dtype.unlisted";

  public UnlistedDtypeCheck() {
    super(Declaration.warning(ID, "the kernel rejects the dtypes the spec does not declare (else: works but not listed)")
        .requires(KernelErrorCheck.ID));
  }

  @Override
  public Optional<String> missingFrom(OpSpec spec) {
    return spec.domain().dtypes().isEmpty()
        ? Optional.of("the spec declares no dtypes (\"domain\": {\"dtypes\": [...]}): nothing is unlisted")
        : Optional.empty();
  }

  /**
   * The tolerance an output in {@code dtype} is held to against the same values computed in a wider one:
   * torch.testing's for the dtype with rtol ten times as loose, and atol as large as rtol, since the two
   * computations round differently (integers and bool exactly).
   */
  static OpSpec.Tolerance across(torch.ScalarType dtype) {
    OpSpec.Tolerance d = dev.opcheck4j.checks.ValueComparison.defaultTolerance(dtype);
    double rtol = 10 * d.rtol();
    return new OpSpec.Tolerance(Math.max(d.atol(), rtol), rtol);
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample base = OpCall.bind(s, s.device());
    List<Integer> data = DtypeTrial.dataTensors(base);
    if (data.isEmpty()) {
      return Verdict.skipped("the example has no top-level tensor argument the declared dtypes are about");
    }
    String own = DtypeTrial.ownDtype(base, data);
    List<String> works = new ArrayList<>();
    List<String> differs = new ArrayList<>();
    List<String> rejects = new ArrayList<>();
    ValueComparison.Mismatch firstMismatch = null;
    for (String dtype : DtypeTrial.ALL) {
      if (s.spec().domain().dtypes().contains(dtype) || dtype.equals(own)) {
        continue;
      }
      BoundExample ex = DtypeTrial.converted(OpCall.bind(s, s.device()), data, dtype);
      List<OpCall.Output> got;
      try {
        got = OpCall.observed(s, ex, OpCall.call(s, ex));
      } catch (OpCall.KernelError e) {
        rejects.add(dtype);
        continue;
      }
      // the same values, back in the example's own dtype
      BoundExample same = DtypeTrial.converted(ex, data, own);
      List<OpCall.Output> want;
      try {
        want = OpCall.observed(s, same, OpCall.call(s, same));
      } catch (OpCall.KernelError e) {
        differs.add(dtype + " (in " + own + " the same values are rejected: \"" + e.getMessage() + "\")");
        continue;
      }
      Optional<ValueComparison.Mismatch> m = difference(want, got);
      if (m.isEmpty()) {
        works.add(dtype);
      } else {
        differs.add(dtype + " (" + m.get().butWas() + ")");
        firstMismatch = firstMismatch == null ? m.get() : firstMismatch;
      }
    }
    List<Fact> facts = new ArrayList<>();
    facts.add(Fact.of("declared", String.join(", ", s.spec().domain().dtypes())));
    facts.add(Fact.of("rejected", rejects.isEmpty() ? "(none)" : String.join(", ", rejects)));
    facts.add(OpCall.exampleFact(s, base));
    if (works.isEmpty() && differs.isEmpty()) {
      return Verdict.passed(facts);
    }
    List<String> parts = new ArrayList<>();
    if (!works.isEmpty()) {
      parts.add("works but not listed: " + String.join(", ", works) + " (the same values as in " + own + ")");
    }
    if (!differs.isEmpty()) {
      parts.add("accepted with other values than in " + own + ": " + String.join(", ", differs));
    }
    Finding f = Finding.of("the kernel rejects every dtype the spec does not declare ("
            + String.join(", ", s.spec().domain().dtypes()) + ")",
        String.join("; ", parts),
        differs.isEmpty() ? "add " + String.join(", ", works) + " to the spec's \"domain\": {\"dtypes\"}"
            : "raise a clear error on dtypes the kernel does not support (STD_TORCH_CHECK on scalar_type()), or declare them",
        firstMismatch != null ? firstMismatch.cause() : new Cause.Contract("works but not listed", String.join(", ", works)))
        .with(facts.toArray(Fact[]::new));
    return Verdict.failed(firstMismatch != null ? f.withHeatmaps(firstMismatch.heatmaps()) : f);
  }

  /** How the outputs in another dtype differ from those in the example's own, compared as float64. */
  private static Optional<ValueComparison.Mismatch> difference(List<OpCall.Output> want, List<OpCall.Output> got) {
    if (want.size() != got.size()) {
      return Optional.of(new ValueComparison.Mismatch(new Cause.MetadataMismatch("outputs", "count"),
          got.size() + " outputs instead of " + want.size(), List.of()));
    }
    for (int i = 0; i < want.size(); i++) {
      Tensor g = got.get(i).tensor();
      Optional<ValueComparison.Mismatch> m = ValueComparison.compare(want.get(i).label(),
          want.get(i).tensor().to(torch.ScalarType.Double), g.to(torch.ScalarType.Double),
          Optional.of(across(g.scalar_type())));
      if (m.isPresent()) {
        return m;
      }
    }
    return Optional.empty();
  }
}
