package dev.opcheck4j.junit;

import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.ExampleGenerator;
import java.util.List;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;

/**
 * One input of an op for a user's own test: the materialized arguments and a way to call the op
 * on them. Made by {@link OpInputs}.
 */
public final class OpInput {
  private final String label;
  private final Subject subject;
  private final BoundExample bound;
  final ExampleGenerator generator;
  final List<Long> choices;

  OpInput(String label, Subject subject, BoundExample bound, ExampleGenerator generator, List<Long> choices) {
    this.label = label;
    this.subject = subject;
    this.bound = bound;
    this.generator = generator;
    this.choices = choices == null ? null : List.copyOf(choices);
  }

  Subject subject() {
    return subject;
  }

  /** {@code example #1} or {@code generated #7}. */
  public String label() {
    return label;
  }

  /** The arguments as text, e.g. {@code a=float32[4, 3] strides [3, 1], b=..., c=0.5}. */
  public String description() {
    return bound.description();
  }

  /** The op's name. */
  public String op() {
    return subject.op().name();
  }

  /** The tensor passed as argument {@code name} (as the schema names it). */
  public Tensor tensor(String name) {
    return bound.tensors().stream().filter(t -> t.argument().equals(name)).map(BoundExample.TensorInput::tensor)
        .findFirst().orElseThrow(() -> new IllegalArgumentException(op() + " has no tensor argument '" + name
            + "'; tensors: " + bound.tensors().stream().map(BoundExample.TensorInput::argument).toList()));
  }

  /** Every argument, positionally, as the op receives it. */
  public List<IValue> arguments() {
    return bound.values();
  }

  /** Argument {@code name} as a double (a float or int argument). */
  public double number(String name) {
    int i = subject.op().schema().arguments().stream().map(a -> a.name()).toList().indexOf(name);
    if (i < 0) {
      throw new IllegalArgumentException(op() + " has no argument '" + name + "'");
    }
    IValue v = bound.values().get(i);
    return v.isDouble() ? v.toDouble() : v.toInt();
  }

  /**
   * Calls the op on these arguments and returns its first tensor output.
   *
   * @throws AssertionError when the kernel raises, with its message
   */
  public Tensor call() {
    List<OpCall.Output> out = callAll().tensors();
    if (out.isEmpty()) {
      throw new IllegalStateException(op() + " returned no tensor");
    }
    return out.get(0).tensor();
  }

  /** Calls the op and returns every output. */
  public OpCall.Outputs callAll() {
    try {
      return OpCall.call(subject, bound);
    } catch (OpCall.KernelError e) {
      throw new AssertionError(op() + " raised on " + this + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return label + ": " + description();
  }
}
