package dev.opcheck4j.checks.out;

import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;

/**
 * Which arguments of an op are write-only (out=) buffers, the one rule every {@code out.*} check reads,
 * and the calls they make with those buffers replaced.
 *
 * <p>The rule: an argument is write-only when it is a keyword-only {@code Tensor(a!)} (torchgen's out=
 * convention: PyTorch's own out= functions declare their out arguments so, and PR #180851 requires it of
 * custom out= operators), or when it is any {@code Tensor(a!)} argument of an op tagged {@code out}
 * ({@code out_variant} in 2.10, where the dispatcher exposes the tag): #180851 makes every mutable
 * argument of such an op a write-only buffer. A positional {@code Tensor(a!)} of an untagged op may be
 * read (an accumulator, an in-place self), so it is not one.
 */
final class WriteOnly {
  /** The rule in one line, for skip reasons and doc pages. */
  static final String RULE = "a keyword-only Tensor(a!) argument, or any Tensor(a!) argument of an op tagged out";

  private WriteOnly() {}

  /** The indices of the subject's op's write-only arguments, in schema order (its declared tags count). */
  static List<Integer> of(Subject s) {
    return of(s.op().schema(), dev.opcheck4j.checks.OpTags.of(s).names());
  }

  /** The indices of the write-only arguments of an op with {@code schema} and dispatcher {@code tags}. */
  static List<Integer> of(OpSchema schema, List<String> tags) {
    boolean tagged = tags.stream().anyMatch(t -> t.equals("out") || t.equals("out_variant"));
    List<OpSchema.Argument> args = schema.arguments();
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      OpSchema.Argument a = args.get(i);
      if (a.isWrite() && a.type().isTensor() && (a.kwargOnly() || tagged)) {
        out.add(i);
      }
    }
    return out;
  }

  /** A fresh binding of the subject's example with each write-only argument {@code i} replaced by {@code replace(it)}. */
  static BoundExample replaced(Subject s, UnaryOperator<Tensor> replace) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    List<IValue> values = new ArrayList<>(ex.values());
    List<BoundExample.TensorInput> tensors = new ArrayList<>();
    for (BoundExample.TensorInput in : ex.tensors()) {
      if (of(s).contains(in.argIndex()) && values.get(in.argIndex()).isTensor()) {
        Tensor t = replace.apply(in.tensor());
        values.set(in.argIndex(), new IValue(t));
        tensors.add(new BoundExample.TensorInput(in.argument(), in.argIndex(), t));
      } else {
        tensors.add(in);
      }
    }
    return new BoundExample(values, tensors, ex.description());
  }

  /**
   * Calls the op on {@code ex}: null when it wrote some write-only argument (its bytes changed), else why
   * the out= rules have nothing to say about this input, as a skip: the kernel raised on it (kernel.error's
   * business), or it wrote no write-only argument (mutation.unused's; the out= rules would only repeat it).
   */
  static Verdict skipUnlessWritten(Subject s, BoundExample ex) {
    List<byte[]> held = buffers(s, ex).stream().map(b -> TensorCopies.bytes(b.tensor())).toList();
    try {
      OpCall.call(s, ex);
    } catch (OpCall.KernelError e) {
      return Verdict.skipped("the kernel raised on the example (\"" + e.getMessage() + "\")");
    }
    List<BoundExample.TensorInput> after = buffers(s, ex);
    for (int k = 0; k < after.size(); k++) {
      if (!java.util.Arrays.equals(held.get(k), TensorCopies.bytes(after.get(k).tensor()))) {
        return null;
      }
    }
    return Verdict.skipped("the kernel wrote none of its write-only arguments on this input: see mutation.unused");
  }

  /** The write-only arguments of {@code ex}, in schema order. */
  static List<BoundExample.TensorInput> buffers(Subject s, BoundExample ex) {
    List<Integer> at = of(s);
    return ex.tensors().stream().filter(t -> at.contains(t.argIndex()) && ex.values().get(t.argIndex()).isTensor()).toList();
  }
}
