package dev.opcheck4j.generate;

import dev.opcheck4j.torch.Device;
import java.util.List;
import org.bytedeco.pytorch.LongOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/** Copies of tensors that keep or change layout on purpose, and bitwise snapshots. */
public final class TensorCopies {
  private TensorCopies() {}

  /**
   * A copy of {@code t} on {@code device} with the same sizes, strides and storage offset (and the
   * same values, unless the device is meta, which has none).
   */
  public static Tensor sameLayout(Tensor t, Device device) {
    return sameLayout(t, device, t.scalar_type().intern());
  }

  /**
   * A copy of {@code t} on {@code device} in {@code dtype}, with the same sizes, strides and storage
   * offset (the values converted, unless the device is meta).
   */
  public static Tensor sameLayout(Tensor t, Device device, torch.ScalarType dtype) {
    long[] sizes = t.sizes().vec().get();
    long[] strides = t.strides().vec().get();
    long offset = t.storage_offset();
    long span = offset;
    if (t.numel() > 0) {
      span += 1;
      for (int i = 0; i < sizes.length; i++) {
        span += (sizes[i] - 1) * strides[i];
      }
    }
    Tensor buf = Materializer.empty(new long[] {Math.max(1, span)}, dtype, device);
    Tensor out = buf.as_strided(sizes, strides, new LongOptional(offset));
    if (device != Device.META) {
      out.copy_(t.detach());
    }
    return out;
  }

  /** The tensor's elements in row-major order, as raw bytes (NaN payloads included). */
  public static byte[] bytes(Tensor t) {
    Tensor c = t.detach().to(new org.bytedeco.pytorch.Device("cpu"), t.scalar_type().intern()).contiguous();
    long n = c.nbytes();
    byte[] out = new byte[(int) n];
    if (n > 0) {
      new org.bytedeco.javacpp.BytePointer(c.data_ptr()).capacity(n).get(out);
    }
    return out;
  }

  /** Elements as doubles in row-major order (for reporting differences). */
  public static double[] doubles(Tensor t) {
    Tensor c = t.detach().to(new org.bytedeco.pytorch.Device("cpu"), torch.ScalarType.Double).contiguous();
    double[] out = new double[(int) c.numel()];
    if (out.length > 0) {
      new org.bytedeco.javacpp.DoublePointer(c.data_ptr()).capacity(out.length).get(out);
    }
    return out;
  }

  /**
   * How two tensors of equal sizes and dtype differ bitwise: {@code "3 of 12 elements differ, max
   * |diff| 0.41 at [0, 2]"}, or empty when their bytes are equal.
   */
  public static java.util.Optional<String> bitwiseDifference(Tensor x, Tensor y) {
    if (java.util.Arrays.equals(bytes(x), bytes(y))) {
      return java.util.Optional.empty();
    }
    double[] dx = doubles(x);
    double[] dy = doubles(y);
    int changed = 0;
    int worst = 0;
    double max = -1;
    for (int k = 0; k < dx.length; k++) {
      if (Double.doubleToRawLongBits(dx[k]) != Double.doubleToRawLongBits(dy[k])) {
        changed++;
        if (Math.abs(dx[k] - dy[k]) > max) {
          max = Math.abs(dx[k] - dy[k]);
          worst = k;
        }
      }
    }
    return java.util.Optional.of(changed + " of " + dx.length + " elements differ, max |diff| " + max + " at "
        + TensorText.index(x.sizes().vec().get(), worst));
  }

  /** Layouts a contiguous input can be re-laid into with the same values. */
  public static List<String> noncontiguousLayouts(Tensor t) {
    List<String> out = new java.util.ArrayList<>();
    if (t.dim() >= 2) {
      out.add("transposed");
    }
    if (t.dim() >= 1) {
      out.add("strided");
    }
    out.add("offset");
    return out;
  }

  /** The device {@code t} is on, without its index ({@code cuda:1} is cuda). */
  static Device deviceOf(Tensor t) {
    String name = t.device().str().getString();
    int colon = name.indexOf(':');
    return Device.parse(colon < 0 ? name : name.substring(0, colon)).orElse(Device.CPU);
  }

  /**
   * A copy of {@code t} with the same values on the same device in {@code layout}: transposed (last
   * two dims), strided (every second element of a larger buffer) or offset (storage offset 3).
   */
  public static Tensor relayout(Tensor t, String layout) {
    long[] shape = t.sizes().vec().get();
    torch.ScalarType dtype = t.scalar_type().intern();
    Device device = t.is_cpu() ? Device.CPU : deviceOf(t);
    long numel = Math.max(0, t.numel());
    long[] contiguous = TensorSpec.contiguousStrides(shape);
    Tensor out;
    switch (layout) {
      case "transposed" -> {
        long[] swapped = shape.clone();
        int n = shape.length;
        swapped[n - 1] = shape[n - 2];
        swapped[n - 2] = shape[n - 1];
        out = Materializer.empty(swapped, dtype, device).transpose(n - 2, n - 1);
      }
      case "strided" -> {
        long[] strides = contiguous.clone();
        for (int i = 0; i < strides.length; i++) {
          strides[i] *= 2;
        }
        out = Materializer.empty(new long[] {Math.max(1, 2 * numel)}, dtype, device).as_strided(shape, strides);
      }
      case "offset" -> out = Materializer.empty(new long[] {numel + 3}, dtype, device)
          .as_strided(shape, contiguous, new LongOptional(3));
      default -> throw new IllegalArgumentException("unknown layout " + layout);
    }
    out.copy_(t.detach());
    if (t.requires_grad()) {
      out.set_requires_grad(true);
    }
    return out;
  }
}
