package dev.opcheck4j.spec;

import java.util.List;
import java.util.Map;

/**
 * How generated inputs may differ from an op's examples (the spec's {@code "vary"}).
 *
 * @param ranges argument name to the range its values (or list elements) are drawn from; other
 *     non-tensor arguments keep their example values
 * @param dtypes dtypes generated tensors may take; empty means the example's floating family
 * @param extremes whether to mix extreme values (0, -0, ±inf, NaN, ±1e30, 1e-30) into tensors
 */
public record Vary(Map<String, Range> ranges, List<String> dtypes, boolean extremes) {
  public static final Vary NONE = new Vary(Map.of(), List.of(), false);

  public Vary {
    ranges = Map.copyOf(ranges);
    dtypes = List.copyOf(dtypes);
  }

  /**
   * An inclusive range.
   *
   * @param integer whether values are whole numbers ({@code "int"}) or not ({@code "float"})
   * @param lo lower bound
   * @param hi upper bound
   * @param location where the spec names the argument, {@code file:line:column}
   */
  public record Range(boolean integer, double lo, double hi, String location) {
    public Range(boolean integer, double lo, double hi) {
      this(integer, lo, hi, "");
    }
  }
}
