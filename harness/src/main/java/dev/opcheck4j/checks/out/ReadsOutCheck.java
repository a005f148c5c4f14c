package dev.opcheck4j.checks.out;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.spec.OpSpec;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * A kernel's results do not depend on what its write-only (out=) arguments held before the call, as
 * test_out's case 0 asks of PyTorch's own out= ops ("out= values have no effect on the computation"):
 * the example runs twice, its write-only arguments filled first with NaN (the largest value of an
 * integer dtype, true for bool, as test_out does), then with a large finite value (the smallest integer,
 * false); every output and written argument must be the same both times.
 */
public final class ReadsOutCheck extends OutCheck {
  public static final String ID = "out.reads-out";

  public ReadsOutCheck() {
    super(Declaration.error(ID, "results do not depend on what write-only (out=) arguments held before the call")
        .requires(KernelErrorCheck.ID)
        .onGeneratedInputs());
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample nan = WriteOnly.replaced(s, t -> filled(t, true, s.device()));
    BoundExample big = WriteOnly.replaced(s, t -> filled(t, false, s.device()));
    List<OpCall.Output> first;
    List<OpCall.Output> second;
    try {
      first = OpCall.observed(s, nan, OpCall.call(s, nan));
      second = OpCall.observed(s, big, OpCall.call(s, big));
    } catch (OpCall.KernelError e) {
      return Verdict.skipped("the kernel raised with filled write-only arguments (\"" + e.getMessage() + "\"): see "
          + KernelErrorCheck.ID);
    }
    Verdict skip = WriteOnly.skipUnlessWritten(s, OpCall.bind(s, s.device()));
    if (skip != null) {
      return skip;
    }
    for (int i = 0; i < first.size(); i++) {
      Tensor a = first.get(i).tensor();
      Tensor b = second.get(i).tensor();
      long[] shape = a.sizes().vec().get();
      if (!java.util.Arrays.equals(shape, b.sizes().vec().get())) {
        return Verdict.failed(new ValueComparison.Mismatch(new dev.opcheck4j.api.Cause.MetadataMismatch(first.get(i).label(), "sizes"),
            first.get(i).label() + " has sizes " + java.util.Arrays.toString(b.sizes().vec().get()) + " after the second call and "
                + java.util.Arrays.toString(shape) + " after the first", List.of()).finding(EXPECTED.formatted(first.get(i).label()), HINT),
            OpCall.exampleFact(s, OpCall.bind(s, s.device())));
      }
      double[] x = TensorCopies.doubles(a);
      double[] y = TensorCopies.doubles(b);
      if (first.get(i).index() < 0) {
        unwrittenLeftOut(x, y, a);
      }
      OpSpec.Tolerance tol = s.spec().tolerance().orElse(ValueComparison.defaultTolerance(a.scalar_type()));
      Optional<ValueComparison.Mismatch> m = ValueComparison.compare(first.get(i).label(), shape, x, y, tol);
      if (m.isPresent()) {
        return Verdict.failed(m.get().finding(EXPECTED.formatted(first.get(i).label()), HINT),
            OpCall.exampleFact(s, OpCall.bind(s, s.device())));
      }
    }
    return Verdict.passed(Fact.of("write-only", String.join(", ",
        WriteOnly.buffers(s, nan).stream().map(b -> "'" + b.argument() + "'").toList())));
  }

  private static final String EXPECTED =
      "%s is the same whatever the write-only arguments held before the call (NaN, then a large finite value)";
  private static final String HINT = "write every element of an out= argument before reading it, or declare it as an"
      + " input: an out= argument is a write-only buffer";

  /**
   * Leaves out of the comparison (sets to 0 on both sides) the elements of a written argument that still
   * hold the fills of both calls: never written, so not read either. A kernel that accepts an out= argument
   * of the wrong shape and writes part of it leaves such elements; that is out.shape's finding.
   */
  private static void unwrittenLeftOut(double[] x, double[] y, Tensor like) {
    double[] poison = TensorCopies.doubles(filled(like, true, dev.opcheck4j.torch.Device.CPU));
    double[] large = TensorCopies.doubles(filled(like, false, dev.opcheck4j.torch.Device.CPU));
    for (int k = 0; k < x.length; k++) {
      boolean stillPoison = Double.isNaN(poison[k]) ? Double.isNaN(x[k]) : x[k] == poison[k];
      if (stillPoison && y[k] == large[k]) {
        x[k] = 0;
        y[k] = 0;
      }
    }
  }

  /**
   * A contiguous tensor of {@code t}'s sizes and dtype holding test_out's poison, or a large finite value.
   * Contiguous, so that a kernel ignoring a strided out's strides fails only out.strides.
   */
  static Tensor filled(Tensor t, boolean poison, dev.opcheck4j.torch.Device device) {
    Tensor c = dev.opcheck4j.generate.Materializer.empty(t.sizes().vec().get(), t.scalar_type().intern(), device);
    torch.ScalarType type = t.scalar_type().intern();
    double v = switch (type) {
      case Bool -> poison ? 1 : 0;
      case Byte -> poison ? 255 : 0;
      case Char -> poison ? 127 : -128;
      case Short -> poison ? 32767 : -32768;
      case Int -> poison ? Integer.MAX_VALUE : Integer.MIN_VALUE;
      case Long -> poison ? Long.MAX_VALUE : Long.MIN_VALUE;
      // large, yet small enough that adding an ordinary value to it still changes it
      case Half, BFloat16 -> poison ? Double.NaN : 1e3;
      default -> poison ? Double.NaN : 1e6;
    };
    c.fill_(type == torch.ScalarType.Long ? new Scalar(poison ? Long.MAX_VALUE : Long.MIN_VALUE) : new Scalar(v));
    return c;
  }
}
