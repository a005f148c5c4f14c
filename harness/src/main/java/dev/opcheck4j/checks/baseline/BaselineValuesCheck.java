package dev.opcheck4j.checks.baseline;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.generate.TensorSpec;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.SchemaBaseline;
import dev.opcheck4j.torch.ValueBaseline;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * Each example a value baseline recorded ({@code ./opcheck baseline --spec}) gives, on the library under
 * test, the outputs the recorded release gave, within the spec's tolerance: tensors of at most {@link
 * ValueBaseline#MAX_VALUES} elements element by element, larger ones by checksum or else by summary.
 * It gives no result in a run without such a baseline; an op whose schema changed incompatibly is left
 * to {@code schema.compatible} (its example no longer binds, or the kernel raises).
 */
public final class BaselineValuesCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "baseline.values";

  public BaselineValuesCheck() {
    super(Declaration.error(ID, "each example gives the outputs the baseline recorded, within tolerance")
        .requires(KernelErrorCheck.ID));
  }

  @Override
  public boolean appliesWith(SchemaBaseline baseline) {
    return baseline != null && baseline.values() != null;
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    ValueBaseline.Recorded recorded = s.recorded();
    if (recorded == null) {
      return Verdict.skipped("the baseline recorded no outputs for this example (a new example, or recorded from another spec)");
    }
    if (recorded.error() != null) {
      return Verdict.skipped("the recorded release raised on this example: " + recorded.error());
    }
    // the recorded release's inputs: drawn again from the seed it was recorded with
    Subject then = new Subject(s.library(), s.op(), s.spec(), s.device(), s.example(), recorded.seed());
    BoundExample ex = OpCall.bind(then, s.device());
    List<ValueBaseline.Output> now = record(then, ex, OpCall.call(then, ex));
    if (now.size() != recorded.outputs().size()) {
      return fail(s, ex, new ValueComparison.Mismatch(new Cause.MetadataMismatch("outputs", "count"),
          now.size() + " output tensors where the baseline recorded " + recorded.outputs().size(), List.of()));
    }
    for (int i = 0; i < now.size(); i++) {
      Optional<ValueComparison.Mismatch> m = compare(recorded.outputs().get(i), now.get(i), s.spec().tolerance());
      if (m.isPresent()) {
        return fail(s, ex, m.get());
      }
    }
    return Verdict.passed(Fact.of("outputs compared", now.size()), Fact.of("recorded with seed", recorded.seed()));
  }

  /** What a call gave, as a baseline records it: each output tensor (or (a!) argument after the call). */
  public static List<ValueBaseline.Output> record(Subject s, BoundExample ex, OpCall.Outputs out) {
    List<ValueBaseline.Output> outputs = new ArrayList<>();
    for (OpCall.Output o : OpCall.observed(s, ex, out)) {
      double[] d = TensorCopies.doubles(o.tensor());
      List<Double> values = new ArrayList<>();
      if (d.length <= ValueBaseline.MAX_VALUES) {
        Arrays.stream(d).forEach(values::add);
      }
      List<Long> shape = Arrays.stream(o.tensor().sizes().vec().get()).boxed().toList();
      outputs.add(new ValueBaseline.Output(o.label(), TensorSpec.dtypeName(o.tensor().scalar_type()), shape, values,
          summary(d)));
    }
    return outputs;
  }

  static ValueBaseline.Summary summary(double[] d) {
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    double sum = 0;
    double squares = 0;
    ByteBuffer bytes = ByteBuffer.allocate(d.length * Double.BYTES);
    for (double x : d) {
      min = Math.min(min, x);
      max = Math.max(max, x);
      sum += x;
      squares += x * x;
      bytes.putDouble(x);
    }
    try {
      String checksum = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes.array()));
      return new ValueBaseline.Summary(d.length == 0 ? 0 : min, d.length == 0 ? 0 : max, d.length == 0 ? 0 : sum / d.length,
          Math.sqrt(squares), checksum);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }

  /** {@code now} against {@code then} as this check compares them (also runtime.agree's comparison across runtimes). */
  public static Optional<ValueComparison.Mismatch> compare(ValueBaseline.Output then, ValueBaseline.Output now,
      Optional<OpSpec.Tolerance> tolerance) {
    String label = now.label();
    if (!then.shape().equals(now.shape())) {
      return Optional.of(new ValueComparison.Mismatch(new Cause.MetadataMismatch(label, "sizes"),
          label + " has sizes " + now.shape() + " where the baseline recorded " + then.shape(), List.of()));
    }
    if (!then.dtype().equals(now.dtype())) {
      return Optional.of(new ValueComparison.Mismatch(new Cause.MetadataMismatch(label, "dtype"),
          label + " is " + now.dtype() + " where the baseline recorded " + then.dtype(), List.of()));
    }
    OpSpec.Tolerance tol = tolerance.orElse(defaultTolerance(now.dtype()));
    long[] shape = now.shape().stream().mapToLong(Long::longValue).toArray();
    if (!then.values().isEmpty()) {
      return ValueComparison.compare(label, shape, doubles(then.values()), doubles(now.values()), tol);
    }
    if (then.summary().checksum().equals(now.summary().checksum())) {
      return Optional.empty();
    }
    // too large to have been recorded element by element: its summary within tolerance
    double[] a = {then.summary().min(), then.summary().max(), then.summary().mean(), then.summary().l2()};
    double[] b = {now.summary().min(), now.summary().max(), now.summary().mean(), now.summary().l2()};
    return ValueComparison.compare(label + " summary [min, max, mean, l2]", new long[] {4}, a, b, tol)
        .map(m -> new ValueComparison.Mismatch(m.cause(), m.butWas() + " (checksum differs; " + shape.length
            + "-d tensor recorded by summary)", m.details()));
  }

  private static OpSpec.Tolerance defaultTolerance(String dtype) {
    return TensorSpec.dtypeOf(dtype).map(ValueComparison::defaultTolerance).orElse(new OpSpec.Tolerance(0, 0));
  }

  private static double[] doubles(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).toArray();
  }

  private static Verdict fail(Subject s, BoundExample ex, ValueComparison.Mismatch m) {
    return Verdict.failed(m.finding("the outputs the baseline recorded on this example",
        "if the change is intended, record a new baseline (./opcheck baseline --spec ... --out ...); else find what"
            + " changed the kernel's arithmetic"), OpCall.exampleFact(s, ex));
  }
}
