package dev.opcheck4j.checks.dtype;

import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorSpec;
import dev.opcheck4j.spec.Domain;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.BoolOptional;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * The subject's example with its data tensors ({@link Domain#takesDeclaredDtypes}) converted to another
 * dtype, values and all, as {@code x.to(dtype)} does: what the {@code dtype.*} checks call the kernel on.
 * Only top-level tensor arguments are converted; an element of a tensor list keeps its dtype.
 */
final class DtypeTrial {
  /** The dtypes a trial may use: every spec dtype the value checks compare (complex is left out). */
  static final List<String> ALL = List.of("float32", "float64", "float16", "bfloat16", "bool", "uint8", "int8",
      "int16", "int32", "int64");

  private DtypeTrial() {}

  /** The example's data tensors: the indices into {@code ex.tensors()} of the top-level ones of a data dtype. */
  static List<Integer> dataTensors(BoundExample ex) {
    boolean anyFloating = ex.tensors().stream().anyMatch(t -> t.tensor().is_floating_point());
    List<Integer> out = new ArrayList<>();
    for (int k = 0; k < ex.tensors().size(); k++) {
      BoundExample.TensorInput in = ex.tensors().get(k);
      if (ex.values().get(in.argIndex()).isTensor()
          && Domain.takesDeclaredDtypes(TensorSpec.dtypeName(in.tensor().scalar_type()), anyFloating)) {
        out.add(k);
      }
    }
    return out;
  }

  /**
   * {@code ex} with the data tensors {@code data} converted to {@code dtype}; an input that required
   * grad still does when {@code dtype} is floating-point (a new leaf).
   */
  static BoundExample converted(BoundExample ex, List<Integer> data, String dtype) {
    torch.ScalarType to = TensorSpec.dtypeOf(dtype).orElseThrow();
    List<IValue> values = new ArrayList<>(ex.values());
    List<BoundExample.TensorInput> tensors = new ArrayList<>(ex.tensors());
    List<String> changed = new ArrayList<>();
    for (int k : data) {
      BoundExample.TensorInput in = ex.tensors().get(k);
      Tensor t = in.tensor().detach().to(to).clone();
      if (in.tensor().requires_grad() && Domain.floating(dtype)) {
        t.requires_grad_(true);
      }
      values.set(in.argIndex(), new IValue(t));
      tensors.set(k, new BoundExample.TensorInput(in.argument(), in.argIndex(), t));
      changed.add(in.argument());
    }
    return new BoundExample(values, tensors, String.join(", ", changed) + " as " + dtype + " (" + ex.description() + ")");
  }

  /** The dtype {@code ex}'s data tensors have (the first one's), as a spec name. */
  static String ownDtype(BoundExample ex, List<Integer> data) {
    return TensorSpec.dtypeName(ex.tensors().get(data.get(0)).tensor().scalar_type());
  }

  /**
   * Backward through the call's floating-point outputs that require grad, seeded with ones, to the
   * inputs that require grad: null when it runs (or nothing requires grad), else the first line of what
   * it raised.
   */
  static String backwardRejection(BoundExample ex, OpCall.Outputs out) {
    List<Tensor> inputs = ex.tensors().stream().map(BoundExample.TensorInput::tensor).filter(Tensor::requires_grad).toList();
    List<Tensor> outputs = out.tensors().stream().map(OpCall.Output::tensor)
        .filter(t -> t.is_floating_point() && t.requires_grad()).toList();
    if (inputs.isEmpty() || outputs.isEmpty()) {
      return null;
    }
    try {
      torch.grad(new TensorVector(outputs.toArray(new Tensor[0])), new TensorVector(inputs.toArray(new Tensor[0])),
          new TensorVector(outputs.stream().map(torch::ones_like).toArray(Tensor[]::new)), new BoolOptional(false),
          false, true);
      return null;
    } catch (RuntimeException e) {
      return dev.opcheck4j.torch.NativeStrings.firstLine(e.getMessage());
    }
  }
}
