package dev.opcheck4j.api;

import java.util.List;
import java.util.Objects;

/**
 * A tensor as data a report can show or draw: what it is and a few of its values.
 *
 * @param role what the tensor is in the finding, e.g. {@code expected} or {@code actual}; never null
 * @param dtype e.g. {@code float32}; never null
 * @param sizes its shape; never null
 * @param strides its strides; never null
 * @param device e.g. {@code cpu}; never null
 * @param values the first values in memory order, as doubles (NaN kept), at most a few; empty for meta
 */
public record TensorSummary(
    String role, String dtype, List<Long> sizes, List<Long> strides, String device, List<Double> values) {
  public TensorSummary {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(device, "device");
    sizes = List.copyOf(sizes);
    strides = List.copyOf(strides);
    values = List.copyOf(values);
  }
}
