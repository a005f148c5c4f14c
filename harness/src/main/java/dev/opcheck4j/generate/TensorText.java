package dev.opcheck4j.generate;

import java.util.Arrays;
import org.bytedeco.pytorch.Tensor;

/** The one renderer of tensors as text: dtype, shape, strides when not contiguous, offset, device. */
public final class TensorText {
  private TensorText() {}

  public static String describe(Tensor t) {
    // dim(), size(i) and stride(i) answer in plain numbers; sizes().vec() and device().str() each
    // allocate native objects with deallocators, which cost more than the rest of a describe
    StringBuilder sb = new StringBuilder();
    sb.append(TensorSpec.dtypeName(t.scalar_type()));
    long dims = t.dim();
    dims(sb, t, dims, false);
    if (!t.is_contiguous()) {
      sb.append(" strides ");
      dims(sb, t, dims, true);
    }
    if (t.storage_offset() != 0) {
      sb.append(" offset ").append(t.storage_offset());
    }
    if (!t.is_cpu()) {
      sb.append(" on ").append(t.device().str().getString());
    }
    if (t.requires_grad()) {
      sb.append(" requires_grad");
    }
    return sb.toString();
  }

  /** The sizes (or strides) of {@code t} as {@link Arrays#toString(long[])} writes them. */
  private static void dims(StringBuilder sb, Tensor t, long dims, boolean strides) {
    sb.append('[');
    for (long i = 0; i < dims; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(strides ? t.stride(i) : t.size(i));
    }
    sb.append(']');
  }

  /** Index of flat element {@code flat} in a tensor of {@code shape}, as {@code [i, j]}. */
  public static String index(long[] shape, long flat) {
    long[] idx = new long[shape.length];
    for (int i = shape.length - 1; i >= 0; i--) {
      long s = Math.max(1, shape[i]);
      idx[i] = flat % s;
      flat /= s;
    }
    return Arrays.toString(idx);
  }
}
