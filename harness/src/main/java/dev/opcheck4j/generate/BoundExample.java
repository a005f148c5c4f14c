package dev.opcheck4j.generate;

import java.util.List;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.IValueVector;
import org.bytedeco.pytorch.Tensor;

/**
 * An example bound to an operator's schema and materialized on one device: one IValue per schema
 * argument (defaults filled in), and every tensor input by argument name.
 *
 * @param values one value per schema argument, in schema order
 * @param tensors every tensor among the arguments (list elements included)
 * @param description short text of the inputs for facts, e.g. {@code x=float32[4, 3] strides [3, 1]}
 */
public record BoundExample(List<IValue> values, List<TensorInput> tensors, String description) {

  /**
   * One tensor input.
   *
   * @param argument schema argument name ({@code xs[1]} for a list element)
   * @param argIndex index of the schema argument it belongs to
   * @param tensor the tensor
   */
  public record TensorInput(String argument, int argIndex, Tensor tensor) {}

  /** A fresh stack for one boxed call. */
  public IValueVector stack() {
    IValueVector stack = new IValueVector();
    for (IValue v : values) {
      stack.push_back(new IValue(v));
    }
    return stack;
  }
}
