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
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.generate.TensorText;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.Tensor;

/**
 * A non-contiguous write-only (out=) argument is written through its strides, in its own storage, as
 * test_out's case 1 asks of PyTorch's own out= ops ("strides are respected and `out` storage is not
 * changed"): the example runs with its write-only arguments as given, then with each one a strided copy
 * (every second element of a larger buffer); the second call must leave the same values in them, with
 * their strides and data_ptr unchanged. A kernel that raises on a non-contiguous out= argument is
 * outside its domain (a clear error is not a defect): passed, with that noted.
 */
public final class OutStridesCheck extends OutCheck {
  public static final String ID = "out.strides";

  public OutStridesCheck() {
    super(Declaration.error(ID, "a non-contiguous out= argument is written through its strides, not reallocated")
        .requires(KernelErrorCheck.ID));
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample plain = WriteOnly.replaced(s, t -> t.is_contiguous() ? t : t.contiguous());
    BoundExample strided = WriteOnly.replaced(s, t -> t.numel() < 2 ? t : TensorCopies.relayout(t, "strided"));
    List<BoundExample.TensorInput> before = WriteOnly.buffers(s, strided);
    List<long[]> strides = before.stream().map(b -> b.tensor().strides().vec().get()).toList();
    List<Long> pointers = before.stream().map(b -> b.tensor().data_ptr() == null ? 0L : b.tensor().data_ptr().address()).toList();
    try {
      OpCall.call(s, plain);
    } catch (OpCall.KernelError e) {
      return Verdict.skipped("the kernel raised with contiguous write-only arguments (\"" + e.getMessage() + "\")");
    }
    try {
      OpCall.call(s, strided);
    } catch (OpCall.KernelError e) {
      return Verdict.passed(Fact.of("note", "the kernel rejects a non-contiguous out= argument with an error (\""
          + e.getMessage() + "\"): outside its domain, not a defect"));
    }
    Fact example = Fact.of("example", s.example().ref() + "  " + strided.description() + ", out= arguments strided");
    List<BoundExample.TensorInput> want = WriteOnly.buffers(s, plain);
    for (int k = 0; k < before.size(); k++) {
      BoundExample.TensorInput b = before.get(k);
      String label = "argument '" + b.argument() + "' after the call";
      long[] now = b.tensor().strides().vec().get();
      long at = b.tensor().data_ptr() == null ? 0L : b.tensor().data_ptr().address();
      if (!Arrays.equals(now, strides.get(k)) || at != pointers.get(k)) {
        return Verdict.failed(Finding.of("'" + b.argument() + "' keeps its strides " + Arrays.toString(strides.get(k))
                + " and its storage", label + " is " + TensorText.describe(b.tensor())
                + (at != pointers.get(k) ? ", in new storage" : ""),
            "write into the out= argument where it is (copy_ into it, or index with its strides); never resize_ or set_ an"
                + " out= argument of the right size", new Cause.MetadataMismatch(label, "strides")), example);
      }
      Optional<ValueComparison.Mismatch> m = ValueComparison.compare(label, want.get(k).tensor(), b.tensor(), s.spec().tolerance());
      if (m.isPresent()) {
        return Verdict.failed(m.get().finding("'" + b.argument() + "', non-contiguous, holds what it holds when contiguous",
            "write the out= argument through its strides (copy_ into it), not its buffer as if it were contiguous"), example);
      }
    }
    return Verdict.passed(Fact.of("compared", before.size() + " strided out= argument(s) with the contiguous call's"));
  }
}
