package dev.opcheck4j.generate;

import java.util.Arrays;
import org.bytedeco.pytorch.Tensor;

/** The one renderer of tensors as text: dtype, shape, strides when not contiguous, offset, device. */
public final class TensorText {
  private TensorText() {}

  public static String describe(Tensor t) {
    StringBuilder sb = new StringBuilder();
    sb.append(TensorSpec.dtypeName(t.scalar_type())).append(Arrays.toString(t.sizes().vec().get()));
    if (!t.is_contiguous()) {
      sb.append(" strides ").append(Arrays.toString(t.strides().vec().get()));
    }
    if (t.storage_offset() != 0) {
      sb.append(" offset ").append(t.storage_offset());
    }
    String device = t.device().str().getString();
    if (!device.equals("cpu")) {
      sb.append(" on ").append(device);
    }
    if (t.requires_grad()) {
      sb.append(" requires_grad");
    }
    return sb.toString();
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
