package dev.opcheck4j.torch;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.Dispatcher;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.IValueVector;
import org.bytedeco.pytorch.OperatorHandle;
import org.bytedeco.pytorch.OperatorHandleOptional;
import org.bytedeco.pytorch.OperatorName;
import org.bytedeco.pytorch.Tensor;

/**
 * The companion's tracing tensor ({@code native-ops/src/main/companion/symbolic.cpp}): a tensor whose sizes
 * are symbolic, as a FakeTensor's are under torch.compile(dynamic=True), and the log of what a kernel did
 * with it (guards, calls that raise on symbolic sizes, data-dependent guards). Reached through the
 * dispatcher only, as the {@code opcheck4j::trace_*} operators.
 */
public final class SymbolicTrace {
  /**
   * One thing the kernel did with a symbolic tensor.
   *
   * @param kind {@code guard} (a specialisation), {@code symbolic-call} (numel() or storage_offset(), which
   *     raise) or {@code data-dependent} (a guard on an unbacked size, or a read of a value)
   * @param text the guard ({@code Eq(s0, 3)}) or the call ({@code numel()})
   * @param where the accessor and the tensor ({@code sizes() on argument 'x'}), or a source line
   */
  public record Event(String kind, String text, String where) {}

  /**
   * A tensor's sizes as the trace left them.
   *
   * @param expressions one per dim: a symbol ({@code s0}), an expression or a number
   * @param hints one per dim: the concrete size, or empty for an unbacked (data-dependent) one
   */
  public record Sizes(List<String> expressions, List<Optional<Long>> hints) {
    /** Whether any dim is symbolic. */
    public boolean symbolic() {
      return expressions.stream().anyMatch(e -> !e.matches("-?\\d+"));
    }
  }

  private static Optional<String> unavailable;

  private SymbolicTrace() {}

  /** Why the tracing tensor cannot be used in this process, or empty when its self-test passed. */
  public static synchronized Optional<String> unavailable() {
    if (unavailable == null) {
      unavailable = check();
    }
    return unavailable;
  }

  private static Optional<String> check() {
    if (Companion.state() instanceof Companion.Unavailable u) {
      return Optional.of("the companion library is unavailable: " + u.reason());
    }
    try {
      String problem = text(call("trace_selftest").get(0));
      return problem.isEmpty() ? Optional.empty()
          : Optional.of("the companion's symbolic tensor disagrees with this libtorch: " + problem);
    } catch (RuntimeException e) {
      return Optional.of("the companion's symbolic-tensor self-test failed: " + NativeStrings.firstLine(e.getMessage()));
    }
  }

  /** Starts a trace on this thread: an empty log, no symbols. */
  public static void begin() {
    call("trace_begin");
  }

  /**
   * A symbolic tensor over the meta tensor {@code inner}: the dims in {@code dims} (bit d for dim d) whose
   * size is 2 or more get a symbol, equal sizes the same one; it reports {@code device}.
   */
  public static Tensor symbolic(Tensor inner, String name, long dims, Device device) {
    return new Tensor(call("trace_symbolic", new IValue(inner), new IValue(name), new IValue(dims),
        new IValue(device.label())).get(0).toTensor());
  }

  /** What the kernels did since {@link #begin()}. */
  public static List<Event> events() {
    String report = text(call("trace_report").get(0));
    List<Event> out = new ArrayList<>();
    for (String line : report.split("\n")) {
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\t", 3);
      out.add(new Event(f[0], f.length > 1 ? f[1] : "", f.length > 2 ? f[2] : ""));
    }
    return out;
  }

  /** The sizes of {@code t}, symbolic or not. */
  public static Sizes sizes(Tensor t) {
    String[] f = text(call("trace_sizes", new IValue(t)).get(0)).split("\t", -1);
    List<String> exprs = f[0].isEmpty() ? List.of() : List.of(f[0].split(","));
    List<Optional<Long>> hints = new ArrayList<>();
    if (f.length > 1 && !f[1].isEmpty()) {
      for (String h : f[1].split(",")) {
        hints.add(h.equals("?") ? Optional.empty() : Optional.of(Long.parseLong(h)));
      }
    }
    return new Sizes(exprs, hints);
  }

  /** A str IValue's text (JavaCPP gives no pointer for an empty std::string). */
  private static String text(IValue v) {
    org.bytedeco.javacpp.BytePointer p = v.toStringRef();
    return p == null || p.isNull() ? "" : p.getString();
  }

  private static List<IValue> call(String name, IValue... args) {
    OperatorHandleOptional found = Dispatcher.singleton().findSchema(new OperatorName("opcheck4j::" + name, ""));
    if (found == null || !found.has_value()) {
      throw new IllegalStateException("the companion registers no opcheck4j::" + name);
    }
    IValueVector stack = new IValueVector();
    for (IValue a : args) {
      stack.push_back(a);
    }
    new OperatorHandle(found.get()).callBoxed(stack);
    List<IValue> out = new ArrayList<>();
    for (long i = 0; i < stack.size(); i++) {
      out.add(new IValue(stack.get(i)));
    }
    return out;
  }
}
