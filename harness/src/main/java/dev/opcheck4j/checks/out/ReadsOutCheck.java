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
      Optional<ValueComparison.Mismatch> m = ValueComparison.compare(first.get(i).label(), first.get(i).tensor(),
          second.get(i).tensor(), s.spec().tolerance());
      if (m.isPresent()) {
        return Verdict.failed(m.get().finding(first.get(i).label() + " is the same whatever the write-only arguments"
                + " held before the call (NaN, then a large finite value)",
            "write every element of an out= argument before reading it, or declare it as an input: an out= argument"
                + " is a write-only buffer"), OpCall.exampleFact(s, OpCall.bind(s, s.device())));
      }
    }
    return Verdict.passed(Fact.of("write-only", String.join(", ",
        WriteOnly.buffers(s, nan).stream().map(b -> "'" + b.argument() + "'").toList())));
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
      case Half -> poison ? Double.NaN : 6e4;
      case BFloat16 -> poison ? Double.NaN : 1e30;
      default -> poison ? Double.NaN : 1e30;
    };
    c.fill_(type == torch.ScalarType.Long ? new Scalar(poison ? Long.MAX_VALUE : Long.MIN_VALUE) : new Scalar(v));
    return c;
  }
}
