package dev.opcheck4j.generate;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.Operator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.LongOptional;
import org.bytedeco.pytorch.Tensor;

/**
 * The last few examples this thread materialized, each kept untouched (no kernel ever sees it), so
 * that binding the same example again gives a copy instead of drawing its values again. The units of
 * one generated input each bind it (noncontiguous once per re-laid-out variant, determinism twice):
 * about 25 draws of the same values per input, each a seeding, a draw, a conversion and the
 * description's text. A copy keeps everything a draw gives: the values bit for bit, sizes, strides,
 * storage offset and storage size (gaps zero-filled, as {@link Materializer#empty} fills them),
 * dtype, device and {@code requires_grad} on a leaf; non-tensor arguments are copied as values.
 *
 * <p>A draw is a function of the op, the example's content, the device and the seed alone
 * ({@link Materializer#valueSeed}), so an example equal to a kept one, for the same op, device and
 * seed, is the kept one. Not kept: examples with a list of tensors (a copy would have to rebuild the
 * list), and examples whose tensors hold more than {@link #MAX_BYTES} (a kept copy would double a
 * large input's memory; drawing it costs little beside what a kernel does with it).
 */
final class KeptExamples {
  static final int SIZE = 4;
  static final long MAX_BYTES = 16L << 20;

  private record Kept(Operator op, Example example, Device device, long seed, List<IValue> values, String description,
      List<Original> tensors, List<String> texts, int[] textOf) {
    boolean is(Operator op, Example example, Device device, long seed) {
      // the salt first: the generated variants of one example differ in it, and a deep comparison is not cheap
      return this.op == op && this.device == device && this.seed == seed
          && (this.example == example || this.example.salt() == example.salt() && this.example.equals(example));
    }
  }

  /**
   * A kept tensor and what a copy of it needs, read once: a copy is then one clone (a dense, row-major
   * tensor) or a zero-filled storage of the same size viewed with the same strides and offset.
   */
  private record Original(String argument, int argIndex, Tensor detached, long[] sizes, long[] strides, long offset,
      long storage, boolean dense, boolean requiresGrad) {
    static Original of(BoundExample.TensorInput in) {
      Tensor t = in.tensor();
      int dim = (int) t.dim();
      long[] sizes = new long[dim];
      long[] strides = new long[dim];
      for (int i = 0; i < dim; i++) {
        sizes[i] = t.size(i);
        strides[i] = t.stride(i);
      }
      long offset = t.storage_offset();
      long storage = t.storage().nbytes() / Math.max(1, t.element_size());
      boolean dense = offset == 0 && storage == t.numel() && java.util.Arrays.equals(strides, TensorSpec.contiguousStrides(sizes));
      return new Original(in.argument(), in.argIndex(), t.detach(), sizes, strides, offset, storage, dense, t.requires_grad());
    }

    /** A leaf copy: the same values, sizes, strides, storage offset and storage size. */
    Tensor copy() {
      Tensor out;
      if (dense) {
        // one clone, which gives these strides and a storage of exactly its elements
        out = detached.clone();
      } else {
        Device device = detached.is_cpu() ? Device.CPU : TensorCopies.deviceOf(detached);
        out = Materializer.empty(new long[] {storage}, detached.scalar_type().intern(), device)
            .as_strided(sizes, strides, new LongOptional(offset));
        if (device != Device.META) {
          out.copy_(detached);
        }
      }
      if (requiresGrad) {
        out.set_requires_grad(true);
      }
      return out;
    }
  }

  private static final ThreadLocal<ArrayDeque<Kept>> KEPT = ThreadLocal.withInitial(ArrayDeque::new);

  private KeptExamples() {}

  /** A copy of the kept materialization of {@code example}, or a new one (kept when it can be). */
  static BoundExample bind(Operator op, Example example, Device device, long seed) throws ExampleException {
    ArrayDeque<Kept> kept = KEPT.get();
    for (Iterator<Kept> it = kept.iterator(); it.hasNext(); ) {
      Kept k = it.next();
      if (k.is(op, example, device, seed)) {
        if (kept.peekFirst() != k) {
          it.remove();
          kept.addFirst(k);
        }
        return copy(k);
      }
    }
    Materializer.Drawn d = device == Device.META ? onMeta(kept, op, example, seed) : null;
    if (d == null) {
      d = Materializer.drawn(op, example, device, seed);
    }
    BoundExample drawn = d.bound();
    if (!keepable(drawn)) {
      return drawn;
    }
    List<Original> tensors = new ArrayList<>(drawn.tensors().size());
    drawn.tensors().forEach(in -> tensors.add(Original.of(in)));
    Kept k = new Kept(op, example, device, seed, drawn.values(), drawn.description(), tensors, d.texts(), d.textOf());
    retain(k);
    kept.addFirst(k);
    if (kept.size() > SIZE) {
      release(kept.removeLast());
    }
    return copy(k);
  }

  /**
   * The example on meta made from its kept cpu materialization, or null when none is kept: a draw on
   * meta draws the cpu values and gives each tensor a meta one of its sizes, strides and storage
   * ({@link TensorCopies#sameLayout}), which is what this does with the kept ones, without the draw.
   * The description's text of each tensor is the meta tensor's own.
   */
  private static Materializer.Drawn onMeta(ArrayDeque<Kept> kept, Operator op, Example example, long seed) {
    for (Kept c : kept) {
      if (!c.is(op, example, Device.CPU, seed)) {
        continue;
      }
      IValue[] values = new IValue[c.values().size()];
      List<BoundExample.TensorInput> tensors = new ArrayList<>(c.tensors().size());
      List<String> texts = new ArrayList<>(c.texts());
      for (Original o : c.tensors()) {
        Tensor t = TensorCopies.sameLayout(o.detached(), Device.META);
        if (o.requiresGrad()) {
          t.set_requires_grad(true);
        }
        tensors.add(new BoundExample.TensorInput(o.argument(), o.argIndex(), t));
        values[o.argIndex()] = new IValue(t);
        texts.set(c.textOf()[o.argIndex()], o.argument() + "=" + TensorText.describe(t));
      }
      for (int i = 0; i < values.length; i++) {
        if (values[i] == null) {
          values[i] = copyOf(c.values().get(i));
        }
      }
      return new Materializer.Drawn(new BoundExample(java.util.Arrays.asList(values), tensors, String.join(", ", texts)),
          List.copyOf(texts), c.textOf());
    }
    return null;
  }

  /** Whether every tensor is a top-level argument and all of them fit in {@link #MAX_BYTES}. */
  private static boolean keepable(BoundExample ex) {
    long bytes = 0;
    for (BoundExample.TensorInput in : ex.tensors()) {
      if (!ex.values().get(in.argIndex()).isTensor()) {
        return false;
      }
      bytes += in.tensor().nbytes();
    }
    return bytes <= MAX_BYTES;
  }

  /** Keeps the example's native values from the PointerScope of the unit that drew it. */
  private static void retain(Kept k) {
    k.values().forEach(Pointer::retainReference);
    k.tensors().forEach(t -> t.detached().retainReference());
  }

  private static void release(Kept k) {
    k.values().forEach(Pointer::releaseReference);
    k.tensors().forEach(t -> t.detached().releaseReference());
  }

  /**
   * A non-tensor value as a new draw gives it: a generator is cloned (its state as drawn, never advanced by a
   * kernel), since an IValue's copy shares the generator, which a kernel's draws move on.
   */
  private static IValue copyOf(IValue v) {
    return v.isGenerator() ? new IValue(v.toGenerator().clone()) : new IValue(v);
  }

  private static BoundExample copy(Kept k) {
    IValue[] values = new IValue[k.values().size()];
    List<BoundExample.TensorInput> tensors = new ArrayList<>(k.tensors().size());
    for (Original o : k.tensors()) {
      Tensor t = o.copy();
      tensors.add(new BoundExample.TensorInput(o.argument(), o.argIndex(), t));
      values[o.argIndex()] = new IValue(t);
    }
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        values[i] = copyOf(k.values().get(i));
      }
    }
    return new BoundExample(java.util.Arrays.asList(values), tensors, k.description());
  }
}
