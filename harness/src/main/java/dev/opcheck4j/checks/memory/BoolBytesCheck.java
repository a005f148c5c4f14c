package dev.opcheck4j.checks.memory;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * {@code bool} storage holding bytes other than 0 and 1 means what 0 and 1 mean: PyTorch reads any
 * nonzero byte as true (OpInfo's {@code test_non_standard_bool_values}). Each bool tensor argument is
 * given again with its true elements stored as the bytes 2..255 (a uint8 tensor of the same layout,
 * viewed as bool); the outputs must be those of the canonical input, bool outputs compared as truth
 * values. A third call on the changed bytes must repeat the second, or nothing is concluded (an op
 * that differs from call to call is {@code determinism}'s).
 */
public final class BoolBytesCheck extends HostMemoryCheck {
  public static final String ID = "memory.bool-bytes";

  public BoolBytesCheck() {
    super(Declaration.error(ID, "bool inputs stored as bytes 2..255 where true give the outputs of 0/1 bools")
        .requires(KernelErrorCheck.ID)
        .onAFewGeneratedInputs());
  }

  /** Bool tensors come from the examples (generated inputs keep a non-floating dtype): no unit for an op without one. */
  @Override
  public java.util.Optional<String> missingFrom(OpSpec spec) {
    boolean any = spec.examples().stream().anyMatch(e -> e.args().stream().anyMatch(BoolBytesCheck::bool)
        || e.kwargs().values().stream().anyMatch(BoolBytesCheck::bool));
    return any ? java.util.Optional.empty() : java.util.Optional.of("no example has a bool tensor argument");
  }

  private static boolean bool(SpecValue v) {
    if (v.isList()) {
      return v.list().stream().anyMatch(BoolBytesCheck::bool);
    }
    SpecValue dtype = v.isObject() ? v.object().get("dtype") : null;
    return dtype != null && "bool".equals(dtype.value());
  }

  @Override
  java.util.Optional<String> unavailable() {
    return java.util.Optional.empty();
  }

  @Override
  Verdict evaluateWith(Subject s) throws Exception {
    BoundExample canonical = OpCall.bind(s, s.device());
    List<String> bools = canonical.tensors().stream()
        .filter(t -> canonical.values().get(t.argIndex()).isTensor() && t.tensor().scalar_type().intern() == torch.ScalarType.Bool
            && t.tensor().numel() > 0)
        .map(BoundExample.TensorInput::argument).toList();
    if (bools.isEmpty()) {
      return Verdict.skipped("no bool tensor argument with elements");
    }
    List<OpCall.Output> first = OpCall.observed(s, canonical, OpCall.call(s, canonical));
    BoundExample odd = nonCanonical(OpCall.bind(s, s.device()));
    List<OpCall.Output> second = OpCall.observed(s, odd, OpCall.call(s, odd, "the cpu kernel, true stored as bytes 2..255"));
    for (int i = 0; i < first.size(); i++) {
      if (Arrays.equals(truth(first.get(i).tensor()), truth(second.get(i).tensor()))) {
        continue;
      }
      BoundExample again = nonCanonical(OpCall.bind(s, s.device()));
      List<OpCall.Output> third = OpCall.observed(s, again, OpCall.call(s, again, "the cpu kernel, true stored as bytes 2..255 (again)"));
      if (!Arrays.equals(truth(second.get(i).tensor()), truth(third.get(i).tensor()))) {
        // not a pass: with outputs that change under one input, the bytes of true cannot be told apart
        return Verdict.skipped(first.get(i).label() + " differs from call to call on the same input (see determinism):"
            + " whether the bytes of true matter cannot be told");
      }
      return Verdict.failed(Finding.of(
          "the outputs of the canonical input (true stored as 1) when true is stored as any nonzero byte",
          first.get(i).label() + " differs when " + String.join(", ", bools) + (bools.size() == 1 ? " holds" : " hold")
              + " true as the bytes 2..255" + TensorCopies.bitwiseDifference(first.get(i).tensor(), second.get(i).tensor())
                  .map(d -> ": " + d).orElse(""),
          "the kernel reads a bool's byte as a number (sum += b, b == 1, a lookup by b): read it as b != 0, or"
              + " through the bool type (static_cast<bool>)",
          new Cause.ValueMismatch(first.get(i).label())), OpCall.exampleFact(s, canonical));
    }
    return Verdict.passed(Fact.of("bool arguments", String.join(", ", bools)));
  }

  /** {@code ex} with every bool tensor argument's true elements stored as 2..255, in the same layout. */
  private static BoundExample nonCanonical(BoundExample ex) {
    List<IValue> values = new ArrayList<>(ex.values());
    List<BoundExample.TensorInput> tensors = new ArrayList<>();
    for (BoundExample.TensorInput in : ex.tensors()) {
      Tensor t = in.tensor();
      if (!values.get(in.argIndex()).isTensor() || t.scalar_type().intern() != torch.ScalarType.Bool || t.numel() == 0) {
        tensors.add(in);
        continue;
      }
      byte[] b = TensorCopies.bytes(t);
      for (int k = 0; k < b.length; k++) {
        b[k] = b[k] == 0 ? 0 : (byte) (2 + k % 254);
      }
      Tensor bytes = Materializer.empty(t.sizes().vec().get(), torch.ScalarType.Byte, Device.CPU);
      new BytePointer(bytes.data_ptr()).capacity(b.length).put(b);
      Tensor laid = TensorCopies.sameLayout(t, Device.CPU, torch.ScalarType.Byte);
      laid.copy_(bytes);
      Tensor odd = laid.view(torch.ScalarType.Bool);
      tensors.add(new BoundExample.TensorInput(in.argument(), in.argIndex(), odd));
      values.set(in.argIndex(), new IValue(odd));
    }
    return new BoundExample(values, tensors, ex.description() + " (true stored as 2..255)");
  }

  /** The tensor's bytes, a bool's as 0 or 1 (its truth). */
  private static byte[] truth(Tensor t) {
    byte[] b = TensorCopies.bytes(t);
    if (t.scalar_type().intern() == torch.ScalarType.Bool) {
      for (int k = 0; k < b.length; k++) {
        b[k] = (byte) (b[k] == 0 ? 0 : 1);
      }
    }
    return b;
  }
}
