package dev.opcheck4j.checks.out;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.generate.TensorSpec;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * A write-only (out=) argument of another dtype is rejected, never written as raw bytes: the example
 * runs as given, then with each write-only argument in another dtype of the same element size (int32 for
 * float32, int64 for float64, int16 for float16 and bfloat16, float32 for int32, ...), so that a kernel
 * copying the result's bytes without looking at the dtype writes exactly its buffer. PyTorch's own out=
 * ops raise on an out= dtype the result cannot be safely cast to (test_out's case 4). Rejecting passes; so
 * does writing the result converted to that dtype (as {@code copy_} does: a conversion, not a silent
 * error); any other value is a failure.
 */
public final class OutDtypeCheck extends OutCheck {
  public static final String ID = "out.dtype";

  public OutDtypeCheck() {
    super(Declaration.error(ID, "an out= argument of another dtype is rejected, never written as raw bytes")
        .requires(KernelErrorCheck.ID));
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample plain = WriteOnly.replaced(s, t -> t);
    BoundExample other = WriteOnly.replaced(s, t -> Materializer.empty(t.sizes().vec().get(), sameSize(t.scalar_type().intern()),
        s.device()).zero_());
    Verdict skip = WriteOnly.skipUnlessWritten(s, plain);
    if (skip != null) {
      return skip;
    }
    List<BoundExample.TensorInput> given = WriteOnly.buffers(s, other);
    String dtypes = String.join(", ", given.stream().map(b -> "'" + b.argument() + "' as "
        + TensorSpec.dtypeName(b.tensor().scalar_type())).toList());
    try {
      OpCall.call(s, other);
    } catch (OpCall.KernelError e) {
      return Verdict.passed(Fact.of("rejected", dtypes + ": \"" + e.getMessage() + "\""));
    }
    List<BoundExample.TensorInput> want = WriteOnly.buffers(s, plain);
    for (int k = 0; k < given.size(); k++) {
      Tensor got = given.get(k).tensor();
      Tensor converted = want.get(k).tensor().to(got.scalar_type().intern());
      String label = "argument '" + given.get(k).argument() + "' after the call";
      Optional<ValueComparison.Mismatch> m = ValueComparison.compare(label, converted, got, Optional.empty());
      if (m.isPresent()) {
        return Verdict.failed(m.get().finding("an out= argument of another dtype (" + dtypes + ") is rejected with an error,"
                + " or holds the result converted to it",
            "check the out= argument's dtype (STD_TORCH_CHECK on scalar_type()) before writing its buffer"),
            Fact.of("example", s.example().ref() + "  out= arguments given as " + dtypes));
      }
    }
    return Verdict.passed(Fact.of("converted", dtypes + ": the kernel wrote the result converted to it"
        + " (PyTorch's own out= ops reject an unsafe cast; a conversion is not a silent error)"));
  }

  /** Another dtype of the same element size, so that raw bytes fit exactly. */
  static torch.ScalarType sameSize(torch.ScalarType t) {
    return switch (t) {
      case Float -> torch.ScalarType.Int;
      case Double -> torch.ScalarType.Long;
      case Half, BFloat16 -> torch.ScalarType.Short;
      case Int -> torch.ScalarType.Float;
      case Long -> torch.ScalarType.Double;
      case Short -> torch.ScalarType.Half;
      case Bool, Byte -> torch.ScalarType.Char;
      default -> torch.ScalarType.Byte;
    };
  }
}
