package dev.opcheck4j.checks.memory;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Progress;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.checks.mutation.UndeclaredMutationCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.torch.Companion;
import dev.opcheck4j.torch.NativeStrings;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.BoolOptional;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * The kernel leaves a lazily cloned (copy-on-write) input lazy: PyTorch's {@code test_cow_input}
 * (test/test_ops.py) on a custom op. Each top-level tensor argument the schema does not declare {@code
 * (a!)} is given as {@code aten::_lazy_clone} of a copy PyTorch allocated (its base kept alive); after the
 * forward call, and after a backward through the outputs that require grad (seeded with lazily cloned
 * ones), each must still be copy-on-write and hold its values. A kernel that takes a writable pointer
 * ({@code data_ptr()}, {@code mutable_data_ptr()}) to such an input materializes it: a copy of the input
 * per call. PyTorch asks this of its own ops only, and the stable ABI had no const accessor before 2.10, so
 * the severity is note (it fired on 120 of 200 correct ops of bench composites; docs/checks/memory.cow-input.md);
 * a write to the input stays {@code memory.readonly-input}'s error.
 */
public final class CowInputCheck extends HostMemoryCheck {
  public static final String ID = "memory.cow-input";
  static final String RULE = "copy-on-write input materialized";
  private static final String EXPECTED = "each input the schema leaves immutable stays a lazy (copy-on-write) clone,"
      + " with its values, through forward and backward (test_cow_input)";
  private static final String HINT = "read the input through const_data_ptr() (the stable ABI has Tensor::const_data_ptr()"
      + " from 2.10): data_ptr() and mutable_data_ptr() are the writable accessors, and on a lazily cloned input"
      + " they copy it first; declare the argument Tensor(a!) if the kernel does write it";

  private static Optional<String> problem;

  public CowInputCheck() {
    super(Declaration.note(ID, "the kernel leaves lazily cloned (copy-on-write) inputs lazy, forward and backward"
        + " (test_cow_input)").requires(KernelErrorCheck.ID, UndeclaredMutationCheck.ID));
  }

  /** One input given lazily cloned: its base, a copy of its values, the lazy clone the kernel gets. */
  private record Lazy(String name, Tensor base, Tensor copy, Tensor lazy) {}

  @Override
  Optional<String> unavailable() {
    synchronized (CowInputCheck.class) {
      if (problem == null) {
        problem = selfTest();
      }
      return problem;
    }
  }

  private static Optional<String> selfTest() {
    if (Companion.state() instanceof Companion.Unavailable u) {
      return Optional.of("the companion library is unavailable: " + u.reason());
    }
    try {
      CompanionOps.call("opcheck4j::cow_self_test");
      return Optional.empty();
    } catch (RuntimeException e) {
      return Optional.of("copy-on-write tensors cannot be told apart here: " + NativeStrings.firstLine(e.getMessage()));
    }
  }

  @Override
  Verdict evaluateWith(Subject s) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    List<OpSchema.Argument> args = s.op().schema().arguments();
    List<IValue> values = new ArrayList<>(ex.values());
    List<BoundExample.TensorInput> tensors = new ArrayList<>();
    List<Lazy> lazies = new ArrayList<>();
    for (BoundExample.TensorInput in : ex.tensors()) {
      Tensor t = in.tensor();
      // test_cow_input clones the strided tensors among the top-level arguments only
      if (!values.get(in.argIndex()).isTensor() || args.get(in.argIndex()).isWrite() || t.numel() == 0 || !t.is_cpu()) {
        tensors.add(in);
        continue;
      }
      // what PyTorch's allocator holds: a copy, whose storage can be shared lazily
      Tensor base = t.detach().clone();
      if (t.requires_grad()) {
        base.requires_grad_(true);
      }
      Tensor lazy = lazyClone(base);
      lazies.add(new Lazy(in.argument(), base, t.detach().clone(), lazy));
      values.set(in.argIndex(), new IValue(lazy));
      tensors.add(new BoundExample.TensorInput(in.argument(), in.argIndex(), lazy));
    }
    if (lazies.isEmpty()) {
      return Verdict.skipped("no tensor argument the schema leaves immutable has elements on cpu");
    }
    BoundExample cow = new BoundExample(values, tensors, ex.description());
    OpCall.Outputs out;
    try {
      out = OpCall.call(s, cow, "the cpu kernel, its immutable inputs lazily cloned (copy-on-write)");
    } catch (OpCall.KernelError e) {
      return Verdict.skipped("the kernel raised on lazily cloned inputs: " + e.getMessage());
    }
    List<String> seen = new ArrayList<>();
    Cause first = null;
    long copied = 0;
    List<Lazy> lazyAfterForward = new ArrayList<>();
    for (Lazy l : lazies) {
      if (isCow(l.lazy())) {
        lazyAfterForward.add(l);
      } else {
        seen.add("argument '" + l.name() + "' materialized in the forward call");
        first = first == null ? new Cause.Contract(RULE, "argument '" + l.name() + "', forward") : first;
        copied += l.lazy().nbytes();
      }
    }
    List<Tensor> gradOutputs = new ArrayList<>();
    String backward = backward(lazies, out, gradOutputs);
    if (backward == null) {
      for (int i = 0; i < gradOutputs.size(); i++) {
        if (!isCow(gradOutputs.get(i))) {
          seen.add("the gradient given for output " + i + " materialized in the backward call");
          first = first == null ? new Cause.Contract(RULE, "grad_output " + i + ", backward") : first;
          copied += gradOutputs.get(i).nbytes();
        }
      }
      for (Lazy l : lazyAfterForward) {
        if (!isCow(l.lazy())) {
          seen.add("argument '" + l.name() + "' materialized in the backward call");
          first = first == null ? new Cause.Contract(RULE, "argument '" + l.name() + "', backward") : first;
          copied += l.lazy().nbytes();
        }
      }
    }
    // values last: comparing reads through whatever accessor at::allclose uses
    for (Lazy l : lazies) {
      boolean lazy = isCow(l.lazy());
      Tensor now = lazy ? l.lazy() : l.base();
      if (!now.detach().allclose(l.copy(), 0, 0, true)) {
        seen.add("argument '" + l.name() + "' " + (lazy ? "stayed lazy, but its values changed"
            : "materialized, and the values it shared with its base changed"));
        first = first == null ? new Cause.Contract(RULE, "argument '" + l.name() + "', values") : first;
      }
    }
    List<Fact> facts = new ArrayList<>();
    facts.add(Fact.of("lazily cloned", String.join(", ", lazies.stream().map(Lazy::name).toList())));
    facts.add(Fact.of("backward", backward == null ? "run" : backward));
    if (first == null) {
      return Verdict.passed(facts.toArray(Fact[]::new));
    }
    String cost = copied > 0 ? "; under lazy cloning each call copies " + copied + " bytes of input first" : "";
    facts.add(0, OpCall.exampleFact(s, ex));
    return Verdict.failed(Finding.of(EXPECTED, String.join("; ", seen) + cost, HINT, first),
        facts.toArray(Fact[]::new));
  }

  /**
   * Backward through the floating-point outputs that require grad, to the lazily cloned inputs that
   * require grad, seeded with lazily cloned ones as test_cow_input does (added to {@code gradOutputs}):
   * null when it ran, else why not.
   */
  private static String backward(List<Lazy> lazies, OpCall.Outputs out, List<Tensor> gradOutputs) {
    List<Tensor> inputs = lazies.stream().map(Lazy::lazy).filter(Tensor::requires_grad).toList();
    List<Tensor> outputs = out.tensors().stream().map(OpCall.Output::tensor)
        .filter(t -> t.is_floating_point() && t.requires_grad()).toList();
    if (inputs.isEmpty() || outputs.isEmpty()) {
      return "not run (no input or output requires grad)";
    }
    Progress.step("the backward of the cpu kernel, its immutable inputs lazily cloned (copy-on-write)");
    outputs.forEach(o -> gradOutputs.add(lazyClone(torch.ones_like(o))));
    try {
      torch.grad(new TensorVector(outputs.toArray(new Tensor[0])), new TensorVector(inputs.toArray(new Tensor[0])),
          new TensorVector(gradOutputs.toArray(new Tensor[0])),
          new BoolOptional(true), false, true);
      return null;
    } catch (RuntimeException e) {
      return "not run (it raised: " + NativeStrings.firstLine(e.getMessage()) + ")";
    }
  }

  private static Tensor lazyClone(Tensor t) {
    return new Tensor(CompanionOps.call("aten::_lazy_clone", new IValue(t)).get(0).toTensor());
  }

  private static boolean isCow(Tensor t) {
    return CompanionOps.call("opcheck4j::is_cow", new IValue(t)).get(0).toBool();
  }
}
