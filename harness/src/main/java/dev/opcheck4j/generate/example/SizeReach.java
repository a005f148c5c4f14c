package dev.opcheck4j.generate.example;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The largest size each dimension of each tensor took, over an op's examples, the variants drawn of them, and
 * those the kernel accepted: whether generation reached sizes above the example's, and whether the kernel let
 * it. Pure: it is told each shape.
 */
public final class SizeReach {
  private final Map<String, long[]> examples = new LinkedHashMap<>();
  private final Map<String, long[]> drawn = new LinkedHashMap<>();
  private final Map<String, long[]> accepted = new LinkedHashMap<>();

  /** An example's tensors' shapes, by label. */
  public void example(Map<String, long[]> shapes) {
    merge(examples, shapes);
  }

  /** A variant's tensors' shapes, by label, and whether the kernel accepted it. */
  public void drew(Map<String, long[]> shapes, boolean acceptedByKernel) {
    merge(drawn, shapes);
    if (acceptedByKernel) {
      merge(accepted, shapes);
    }
  }

  /**
   * Per tensor, the largest size of each dimension drawn, accepted and in the examples ({@code x: drawn [9, 7],
   * accepted [9, 5], example [4, 3]}); empty when nothing was drawn.
   */
  public String text() {
    if (drawn.isEmpty()) {
      return "";
    }
    List<String> out = new ArrayList<>();
    drawn.forEach((label, d) -> out.add(label + ": drawn " + shape(d) + ", accepted "
        + (accepted.containsKey(label) ? shape(accepted.get(label)) : "none") + ", example "
        + (examples.containsKey(label) ? shape(examples.get(label)) : "none")));
    return String.join("; ", out);
  }

  private static void merge(Map<String, long[]> into, Map<String, long[]> shapes) {
    shapes.forEach((label, s) -> {
      long[] now = into.get(label);
      long[] merged = now == null ? new long[s.length] : Arrays.copyOf(now, Math.max(now.length, s.length));
      if (now == null) {
        Arrays.fill(merged, -1);
      } else if (s.length > now.length) {
        Arrays.fill(merged, now.length, s.length, -1);
      }
      for (int d = 0; d < s.length; d++) {
        merged[d] = Math.max(merged[d], s[d]);
      }
      into.put(label, merged);
    });
  }

  /** {@code [9, 7]}; a dimension only some ranks have, and none of those reached, as "-". */
  private static String shape(long[] s) {
    List<String> dims = new ArrayList<>();
    for (long d : s) {
      dims.add(d < 0 ? "-" : Long.toString(d));
    }
    return "[" + String.join(", ", dims) + "]";
  }
}
