package dev.opcheck4j.checks.memory;

import dev.opcheck4j.generate.BoundExample;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.IntPredicate;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.pytorch.GenericList;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;

/**
 * An example whose tensor arguments (inputs, {@code (a!)} and out= arguments alike, and each tensor of
 * a {@code Tensor[]} or {@code Tensor?[]} argument) are copies, with the same sizes and strides, in
 * {@link GuardedMemory} with the guard page on one side. Tensors with no elements stay where they are.
 */
final class GuardedArguments implements AutoCloseable {
  /** One guarded argument: the tensor it copies, the memory it lies in and the copy. */
  private record Placed(BoundExample.TensorInput original, GuardedMemory memory, Tensor copy) {}

  private final GuardedMemory.Side side;
  private final List<Placed> placed;
  private final BoundExample example;

  private GuardedArguments(GuardedMemory.Side side, List<Placed> placed, BoundExample example) {
    this.side = side;
    this.placed = placed;
    this.example = example;
  }

  /** Copies of {@code ex}'s tensor arguments against guard pages on {@code side}, with {@code canary} around them. */
  static GuardedArguments of(BoundExample ex, GuardedMemory.Side side, byte canary) {
    return of(ex, side, canary, argIndex -> true);
  }

  /**
   * Copies of {@code ex}'s tensor arguments at the schema indices {@code readOnly} accepts, in pages
   * made read-only once filled (the others stay where they are).
   */
  static GuardedArguments readOnly(BoundExample ex, byte canary, IntPredicate readOnly) {
    return of(ex, GuardedMemory.Side.READ_ONLY, canary, readOnly);
  }

  private static GuardedArguments of(BoundExample ex, GuardedMemory.Side side, byte canary, IntPredicate which) {
    List<IValue> values = new ArrayList<>(ex.values());
    List<BoundExample.TensorInput> tensors = new ArrayList<>();
    List<Placed> placed = new ArrayList<>();
    GuardedArguments made = new GuardedArguments(side, placed, new BoundExample(values, tensors, ex.description()));
    try {
      // each list argument is copied once, its tensors replaced in the copy
      Map<Integer, GenericList> lists = new HashMap<>();
      for (BoundExample.TensorInput in : ex.tensors()) {
        Tensor t = in.tensor();
        IValue value = ex.values().get(in.argIndex());
        OptionalInt element = value.isList() ? elementOf(value.toList(), t) : OptionalInt.empty();
        if (!(value.isTensor() || element.isPresent()) || t.numel() == 0 || !t.is_cpu() || !which.test(in.argIndex())) {
          tensors.add(in);
          continue;
        }
        GuardedMemory memory = GuardedMemory.map(span(t), side, canary);
        Tensor copy = torch.from_blob(at(memory.storage()), t.sizes().vec().get(), t.strides().vec().get(),
            new TensorOptions(t.scalar_type().intern()));
        placed.add(new Placed(in, memory, copy));
        copy.copy_(t.detach());
        if (side == GuardedMemory.Side.READ_ONLY) {
          memory.protectReadOnly();
        }
        tensors.add(new BoundExample.TensorInput(in.argument(), in.argIndex(), copy));
        if (element.isPresent()) {
          GenericList list = lists.computeIfAbsent(in.argIndex(), i -> value.toList().copy());
          list.set(element.getAsInt(), new IValue(copy));
          values.set(in.argIndex(), new IValue(list));
        } else {
          values.set(in.argIndex(), new IValue(copy));
        }
      }
    } catch (RuntimeException | Error e) {
      made.close();
      throw e;
    }
    return made;
  }

  /** Where {@code t} itself is in {@code list}, or empty when it is not. */
  private static OptionalInt elementOf(GenericList list, Tensor t) {
    for (int j = 0; j < list.size(); j++) {
      IValue e = list.get(j);
      if (e.isTensor() && e.toTensor().is_same(t)) {
        return OptionalInt.of(j);
      }
    }
    return OptionalInt.empty();
  }

  /** The example with the guarded copies in place of its tensor arguments. */
  BoundExample example() {
    return example;
  }

  boolean none() {
    return placed.isEmpty();
  }

  /** Where the guard pages are, as the step before the call tells them. */
  GuardRanges ranges() {
    return new GuardRanges(placed.stream().map(p -> side == GuardedMemory.Side.READ_ONLY
        ? new GuardRanges.Range(p.original().argument(), side, p.memory().storage(),
            p.memory().storage() + span(p.original().tensor()))
        : new GuardRanges.Range(p.original().argument(), side, p.memory().guardFrom(), p.memory().guardTo())).toList());
  }

  /** The argument names, in order. */
  List<String> arguments() {
    return placed.stream().map(p -> p.original().argument()).toList();
  }

  /**
   * The first argument with bytes outside its storage written by the call, and where: the cause, and
   * the offsets of the first and last byte changed, relative to the storage's first byte.
   */
  Optional<Damage> damage() {
    for (Placed p : placed) {
      Optional<long[]> d = p.memory().damage(side);
      if (d.isPresent()) {
        long[] at = d.get();
        GuardedMemory.Side direction = at[0] < 0 ? GuardedMemory.Side.START : GuardedMemory.Side.END;
        long nbytes = span(p.original().tensor());
        String where = direction == GuardedMemory.Side.START ? "from " + -at[0] + " byte(s) before its first byte"
            : "from byte " + (at[0] - nbytes) + " past its end";
        return Optional.of(new Damage(GuardRanges.cause(p.original().argument(), direction),
            "argument '" + p.original().argument() + "', " + direction.direction + ": written " + where + " (" + nbytes
                + " bytes of storage; the canary bytes around it changed)"));
      }
    }
    return Optional.empty();
  }

  /** Bytes outside an argument's storage that a call wrote. */
  record Damage(dev.opcheck4j.api.Cause cause, String text) {}

  @Override
  public void close() {
    placed.forEach(p -> p.memory().close());
  }

  /** The bytes from a tensor's first element to the end of its last (its strides may skip some between). */
  static long span(Tensor t) {
    long[] sizes = t.sizes().vec().get();
    long[] strides = t.strides().vec().get();
    long last = 0;
    for (int i = 0; i < sizes.length; i++) {
      last += (sizes[i] - 1) * strides[i];
    }
    return (last + 1) * t.element_size();
  }

  private static Pointer at(long where) {
    return new Pointer() {
      {
        address = where;
      }
    };
  }
}
