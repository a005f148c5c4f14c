package dev.opcheck4j.checks.out;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.generate.TensorText;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.Tensor;

/**
 * A write-only (out=) argument of the wrong shape, with elements, is either rejected with an error or
 * resized to the right shape and written, as PyTorch's out= ops do (test_out's case 3: resized, with the
 * warning "An output with one or more elements was resized"; the generated out= implementation of PR
 * #174474 calls {@code resize_as_} then {@code copy_}): the example runs as given, then with each
 * write-only argument one element longer in its first dimension (a 1-element 1-d one for a 0-d argument).
 * Accepting it and leaving it in the wrong shape, partly written, is a silently wrong answer.
 */
public final class OutShapeCheck extends OutCheck {
  public static final String ID = "out.shape";

  public OutShapeCheck() {
    super(Declaration.error(ID, "an out= argument of the wrong shape is rejected, or resized and written")
        .requires(KernelErrorCheck.ID));
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample plain = WriteOnly.replaced(s, t -> t);
    BoundExample wrong = WriteOnly.replaced(s, t -> Materializer.empty(longer(t.sizes().vec().get()), t.scalar_type().intern(),
        s.device()).zero_());
    Verdict skip = WriteOnly.skipUnlessWritten(s, plain);
    if (skip != null) {
      return skip;
    }
    List<BoundExample.TensorInput> given = WriteOnly.buffers(s, wrong);
    List<String> shapes = given.stream().map(b -> TensorText.describe(b.tensor())).toList();
    try {
      OpCall.call(s, wrong);
    } catch (OpCall.KernelError e) {
      return Verdict.passed(Fact.of("rejected", "out= arguments " + String.join(", ", shapes) + ": \"" + e.getMessage() + "\""));
    }
    Fact example = Fact.of("example", s.example().ref() + "  out= arguments given as " + String.join(", ", shapes));
    List<BoundExample.TensorInput> want = WriteOnly.buffers(s, plain);
    for (int k = 0; k < given.size(); k++) {
      Tensor got = given.get(k).tensor();
      Tensor right = want.get(k).tensor();
      String label = "argument '" + given.get(k).argument() + "' after the call";
      if (!Arrays.equals(got.sizes().vec().get(), right.sizes().vec().get())) {
        return Verdict.failed(Finding.of("an out= argument of the wrong shape (" + shapes.get(k) + " where the example's is "
                + TensorText.describe(right) + ") is rejected with an error, or resized and written",
            "the kernel accepted it and left it " + TensorText.describe(got),
            "check the out= argument's sizes (STD_TORCH_CHECK) or resize it to the result's before writing",
            new Cause.MetadataMismatch(label, "sizes")), example);
      }
      Optional<ValueComparison.Mismatch> m = ValueComparison.compare(label, right, got, s.spec().tolerance());
      if (m.isPresent()) {
        return Verdict.failed(m.get().finding("a resized out= argument holds the result",
            "write the whole result after resizing"), example);
      }
    }
    return Verdict.passed(Fact.of("resized", "out= arguments given as " + String.join(", ", shapes) + " were resized and written"));
  }

  /** {@code sizes} with the first dimension one longer; {@code [1]} for a 0-d shape. */
  private static long[] longer(long[] sizes) {
    if (sizes.length == 0) {
      return new long[] {1};
    }
    long[] out = sizes.clone();
    out[0]++;
    return out;
  }
}
