package dev.opcheck4j.torch;

import java.util.List;
import java.util.Optional;

/**
 * The outputs a release of an op library gave on its spec's examples, recorded next to its schema
 * baseline for a later release to be compared against (the side file of docs/baseline.md).
 *
 * @param format always {@link #FORMAT}
 * @param seed the seed the examples' tensor values were drawn from; a later run draws them again from it
 * @param examples one entry per (op, example), in spec order
 */
public record ValueBaseline(String format, long seed, List<Recorded> examples) {
  public static final String FORMAT = "opcheck4j-values/1";
  /** Tensors with at most this many elements are recorded value by value, larger ones as a summary. */
  public static final int MAX_VALUES = 64;

  public ValueBaseline {
    examples = List.copyOf(examples);
  }

  /**
   * What one example gave.
   *
   * @param op the op, {@code ns::name}
   * @param example the example's ref, {@code spec.json#ops[0].examples[1]}
   * @param seed the seed its tensor values were drawn from
   * @param outputs the op's output tensors (or its (a!) arguments after the call), in order; empty with
   *     {@code error} when the op raised
   * @param error the first line the op raised, or null when it ran
   */
  public record Recorded(String op, String example, long seed, List<Output> outputs, String error) {
    public Recorded {
      outputs = List.copyOf(outputs);
    }
  }

  /**
   * One output tensor.
   *
   * @param label {@code output 0}, {@code output 1[2]} or {@code argument 'x' after the call}
   * @param dtype the dtype's spec name, {@code float32}
   * @param shape its sizes
   * @param values every element as a double in row-major order, for a tensor of at most {@link
   *     #MAX_VALUES} elements; empty for a larger one
   * @param summary min, max, mean, L2 norm and checksum; always given
   */
  public record Output(String label, String dtype, List<Long> shape, List<Double> values, Summary summary) {
    public Output {
      shape = List.copyOf(shape);
      values = List.copyOf(values);
    }
  }

  /**
   * A tensor in a few numbers.
   *
   * @param min smallest element (NaN when it holds a NaN)
   * @param max largest element
   * @param mean arithmetic mean
   * @param l2 Euclidean norm
   * @param checksum SHA-256 of its elements as float64 in row-major order, hex
   */
  public record Summary(double min, double max, double mean, double l2, String checksum) {}

  /** What {@code op} gave on the example {@code exampleRef}, if recorded. */
  public Optional<Recorded> find(String op, String exampleRef) {
    return examples.stream().filter(r -> r.op().equals(op) && r.example().equals(exampleRef)).findFirst();
  }
}
