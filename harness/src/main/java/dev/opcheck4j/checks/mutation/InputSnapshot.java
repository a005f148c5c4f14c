package dev.opcheck4j.checks.mutation;

import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.generate.TensorText;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bytedeco.pytorch.Tensor;

/** A bitwise copy of a tensor input with its metadata, taken before a call. */
record InputSnapshot(
    BoundExample.TensorInput input, byte[] bytes, double[] values, long[] sizes, long[] strides,
    long offset, long dataPtr) {

  static InputSnapshot of(BoundExample.TensorInput in) {
    Tensor t = in.tensor();
    return new InputSnapshot(in, TensorCopies.bytes(t), TensorCopies.doubles(t), t.sizes().vec().get(),
        t.strides().vec().get(), t.storage_offset(), t.numel() == 0 ? 0 : t.data_ptr().address());
  }

  /** What changed since the snapshot, or an empty list. */
  List<String> changes() {
    Tensor t = input.tensor();
    List<String> out = new ArrayList<>();
    long[] nowSizes = t.sizes().vec().get();
    long[] nowStrides = t.strides().vec().get();
    if (!Arrays.equals(sizes, nowSizes)) {
      out.add("sizes changed from " + Arrays.toString(sizes) + " to " + Arrays.toString(nowSizes));
    }
    if (!Arrays.equals(strides, nowStrides)) {
      out.add("strides changed from " + Arrays.toString(strides) + " to " + Arrays.toString(nowStrides));
    }
    if (offset != t.storage_offset()) {
      out.add("storage offset changed from " + offset + " to " + t.storage_offset());
    }
    if (t.numel() > 0 && dataPtr != t.data_ptr().address()) {
      out.add("storage was replaced");
    }
    if (!out.isEmpty()) {
      return out;
    }
    byte[] now = TensorCopies.bytes(t);
    if (Arrays.equals(bytes, now)) {
      return out;
    }
    int width = (int) t.element_size();
    double[] after = TensorCopies.doubles(t);
    int changed = 0;
    double maxDiff = -1;
    int worst = -1;
    for (int i = 0; i < values.length; i++) {
      if (!Arrays.equals(bytes, i * width, (i + 1) * width, now, i * width, (i + 1) * width)) {
        changed++;
        double d = Math.abs(after[i] - values[i]);
        if (worst < 0 || d > maxDiff || Double.isNaN(d)) {
          maxDiff = d;
          worst = i;
        }
      }
    }
    out.add(changed + " of " + values.length + " elements changed, max |diff| " + maxDiff
        + " at " + TensorText.index(sizes, worst) + " (" + values[worst] + " -> " + after[worst] + ")");
    return out;
  }
}
