package dev.opcheck4j.generate;

import dev.opcheck4j.generate.example.ExampleArgs;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which tensor inputs of an example require grad when the harness decides it: every floating-point
 * tensor (float16, bfloat16, float32, float64) of an argument the op does not write to. A written
 * argument ({@code Tensor(a!)}) is left alone: autograd refuses an in-place write into a leaf that
 * requires grad, so marking it would turn a correct op into a rejected call.
 */
public final class GradientInputs {
  private GradientInputs() {}

  /** Whether a tensor of dtype {@code dtype} (a spec dtype name) can require grad. */
  public static boolean floating(String dtype) {
    return dev.opcheck4j.spec.Domain.floating(dtype);
  }

  /** {@code example} with {@code "requires_grad": true} on every floating-point tensor of an argument not written to. */
  public static Example requiringGrad(OpSchema schema, Example example) {
    List<SpecValue> args = new ArrayList<>();
    for (int i = 0; i < example.args().size(); i++) {
      boolean written = i < schema.arguments().size() && schema.arguments().get(i).isWrite();
      args.add(written ? example.args().get(i) : marked(example.args().get(i)));
    }
    Map<String, SpecValue> kwargs = new LinkedHashMap<>();
    for (Map.Entry<String, SpecValue> e : example.kwargs().entrySet()) {
      boolean written = schema.argument(e.getKey()).map(OpSchema.Argument::isWrite).orElse(false);
      kwargs.put(e.getKey(), written ? e.getValue() : marked(e.getValue()));
    }
    return new Example(example.ref(), args, kwargs, example.salt());
  }

  /**
   * The arguments whose floating-point tensors the example itself says require grad: the gradients it
   * asks for, which the gradient checks hold the op to (an input only the harness marks, as the
   * autograd probe does, is not among them). Empty when the example asks for none.
   */
  public static List<String> requested(OpSchema schema, Example example) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < example.args().size(); i++) {
      if (asks(example.args().get(i))) {
        out.add(i < schema.arguments().size() ? schema.arguments().get(i).name() : "argument " + i);
      }
    }
    example.kwargs().forEach((name, v) -> {
      if (asks(v)) {
        out.add(name);
      }
    });
    return out;
  }

  private static boolean asks(SpecValue v) {
    if (ExampleArgs.isTensor(v)) {
      SpecValue rg = v.object().get("requires_grad");
      return rg != null && Boolean.TRUE.equals(rg.value()) && floating(ExampleArgs.dtypeOf(v.object()));
    }
    return v.isList() && v.list().stream().anyMatch(GradientInputs::asks);
  }

  private static SpecValue marked(SpecValue v) {
    if (ExampleArgs.isTensor(v)) {
      if (!floating(ExampleArgs.dtypeOf(v.object()))) {
        return v;
      }
      Map<String, SpecValue> m = new LinkedHashMap<>(v.object());
      m.put("requires_grad", new SpecValue(true, v.location()));
      return new SpecValue(m, v.location());
    }
    if (v.isList() && v.list().stream().anyMatch(ExampleArgs::isTensor)) {
      List<SpecValue> out = new ArrayList<>();
      for (SpecValue e : v.list()) {
        out.add(marked(e));
      }
      return new SpecValue(out, v.location());
    }
    return v;
  }
}
