package dev.opcheck4j.checks;

import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.torch.AllocatorFill;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.IValueVector;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;

/** Materializes a subject's example and calls its operator once, through the boxed dispatcher path. */
public final class OpCall {
  private OpCall() {}

  /** The kernel raised; the message is the first line of the C++ error. */
  public static final class KernelError extends Exception {
    private static final java.util.regex.Pattern UNSUPPORTED =
        java.util.regex.Pattern.compile("Not yet supported conversion from \\w+ to \\w+ for schema type: (\\S+)");

    public KernelError(String message) {
      super(message);
    }

    /**
     * The schema type the runtime's stable ABI could not convert, when that is why the call failed
     * ({@code Scalar} in libtorch 2.10): a limit of the runtime, not of the kernel, which never ran.
     */
    public java.util.Optional<String> unsupportedType() {
      java.util.regex.Matcher m = UNSUPPORTED.matcher(String.valueOf(getMessage()));
      return m.find() ? java.util.Optional.of(m.group(1)) : java.util.Optional.empty();
    }
  }

  /**
   * One output tensor.
   *
   * @param label {@code output 0}, or {@code output 1[2]} for an element of a returned list
   * @param index index of the schema return it belongs to
   * @param tensor the tensor
   */
  public record Output(String label, int index, Tensor tensor) {}

  /**
   * What a call returned.
   *
   * @param values one IValue per schema return
   * @param tensors every output tensor, list elements flattened
   */
  public record Outputs(List<IValue> values, List<Output> tensors) {}

  /** The {@code example} fact: where the example is and what its inputs were. */
  public static dev.opcheck4j.api.Fact exampleFact(Subject s, BoundExample ex) {
    return dev.opcheck4j.api.Fact.of("example", s.example().ref() + "  " + ex.description());
  }

  public static BoundExample bind(Subject s, Device device) throws ExampleException {
    Progress.step(device == Device.META && s.device() != Device.META ? "meta copies of the inputs"
        : "the inputs on " + device.label());
    return Materializer.bind(s.op(), s.example(), device, s.seed());
  }

  public static Outputs call(Subject s, BoundExample ex) throws KernelError {
    return call(s, ex, "the " + (onMeta(ex) ? "meta" : s.device().label()) + " kernel");
  }

  /** {@link #call(Subject, BoundExample)}, telling {@code step} as the step the call is (what a death names). */
  public static Outputs call(Subject s, BoundExample ex, String step) throws KernelError {
    return call(s, ex, step, seeded(s) ? java.util.OptionalLong.of(s.seed()) : java.util.OptionalLong.empty());
  }

  /**
   * {@link #call(Subject, BoundExample)} with torch's default generator started from {@code defaultSeed}
   * before the call (left as it is when empty), whatever the op's tags: what the determinism check asks of
   * an op it passes a generator ({@link #givesGenerator}).
   */
  public static Outputs call(Subject s, BoundExample ex, java.util.OptionalLong defaultSeed) throws KernelError {
    return call(s, ex, "the " + (onMeta(ex) ? "meta" : s.device().label()) + " kernel", defaultSeed);
  }

  private static Outputs call(Subject s, BoundExample ex, String step, java.util.OptionalLong defaultSeed)
      throws KernelError {
    if (onMeta(ex) && !s.op().table().serves(Device.META) && s.op().hasTrivialFakeImpl()) {
      // what FakeTensorMode does for it: nothing (see Operator.hasTrivialFakeImpl)
      return new Outputs(List.of(), List.of());
    }
    if (onMeta(ex) && !s.op().table().serves(Device.META) && s.op().hasFakeFallback()) {
      return fallback(s, ex);
    }
    Progress.step(step);
    // memory no kernel wrote reads as zeros in every call, so only memory.uninitialized sees it
    AllocatorFill.zerosByDefault();
    IValueVector stack = ex.stack();
    if (defaultSeed.isPresent()) {
      org.bytedeco.pytorch.global.torch.manual_seed(defaultSeed.getAsLong());
    }
    try {
      s.op().handle().callBoxed(stack);
    } catch (RuntimeException e) {
      throw new KernelError(StableAbiErrors.message(e));
    }
    List<IValue> values = new ArrayList<>();
    List<Output> tensors = new ArrayList<>();
    for (long i = 0; i < stack.size(); i++) {
      // JavaCPP returns vector elements by reference: copy before the vector can be freed
      IValue v = new IValue(stack.get(i));
      values.add(v);
      if (v.isTensor()) {
        tensors.add(new Output("output " + i, (int) i, new Tensor(v.toTensor())));
      } else if (v.isTensorList()) {
        TensorVector list = v.toTensorVector();
        for (long j = 0; j < list.size(); j++) {
          tensors.add(new Output("output " + i + "[" + j + "]", (int) i, new Tensor(list.get(j))));
        }
      }
    }
    return new Outputs(values, tensors);
  }

  /**
   * What FakeTensorMode does for an op of one of PyTorch's own namespaces with no Meta kernel: its
   * own kernel on zero-filled cpu tensors of the inputs' sizes and dtypes, the outputs moved to meta.
   */
  private static Outputs fallback(Subject s, BoundExample ex) throws KernelError {
    List<IValue> values = new ArrayList<>(ex.values());
    List<BoundExample.TensorInput> tensors = new ArrayList<>();
    for (BoundExample.TensorInput in : ex.tensors()) {
      Tensor zeros = Materializer.empty(in.tensor().sizes().vec().get(), in.tensor().scalar_type(), Device.CPU);
      tensors.add(new BoundExample.TensorInput(in.argument(), in.argIndex(), zeros));
      if (values.get(in.argIndex()).isTensor()) {
        values.set(in.argIndex(), new IValue(zeros));
      }
    }
    Outputs real = call(s, new BoundExample(values, tensors, ex.description()));
    List<IValue> moved = new ArrayList<>();
    for (IValue v : real.values()) {
      moved.add(v.isTensor() ? new IValue(toMeta(v.toTensor(), tensors, ex)) : v);
    }
    List<Output> outputs = new ArrayList<>();
    for (Output o : real.tensors()) {
      outputs.add(new Output(o.label(), o.index(), toMeta(o.tensor(), tensors, ex)));
    }
    return new Outputs(moved, outputs);
  }

  /** An output of the fallback on meta: the meta input it is (an input returned), else a meta copy. */
  private static Tensor toMeta(Tensor out, List<BoundExample.TensorInput> zeros, BoundExample ex) {
    for (int k = 0; k < zeros.size(); k++) {
      if (out.is_same(zeros.get(k).tensor())) {
        return ex.tensors().get(k).tensor();
      }
    }
    return out.to(new org.bytedeco.pytorch.Device("meta"), out.scalar_type().intern());
  }

  /**
   * Whether the example passes the op a generator (a {@code Generator} argument that is not None): the
   * generator it must draw its random numbers from, instead of torch's default one.
   */
  public static boolean givesGenerator(BoundExample ex) {
    return ex.values().stream().anyMatch(IValue::isGenerator);
  }

  /**
   * Whether every call of the subject's op starts torch's generators from the subject's seed: when the op
   * is tagged {@code nondeterministic_seeded} (registered or declared), the tag's promise that its random
   * draws are all it varies by, so that two calls on equal inputs compare equal under one seed.
   */
  public static boolean seeded(Subject s) {
    return OpTags.of(s).has(OpTags.NONDETERMINISTIC_SEEDED);
  }

  /** Starts torch's generators from the subject's seed when its op is {@link #seeded}; before each call of it. */
  public static void seedIfTagged(Subject s) {
    if (seeded(s)) {
      org.bytedeco.pytorch.global.torch.manual_seed(s.seed());
    }
  }

  private static boolean onMeta(BoundExample ex) {
    return ex.tensors().stream().anyMatch(t -> t.tensor().is_meta());
  }

  /**
   * What a call produced that can be compared between calls: the returned tensors, then every
   * argument declared (a!) as it is after the call (in-place ops return nothing).
   */
  public static List<Output> observed(Subject s, BoundExample ex, Outputs out) {
    List<Output> all = new ArrayList<>(out.tensors());
    for (BoundExample.TensorInput in : ex.tensors()) {
      if (s.op().schema().arguments().get(in.argIndex()).isWrite()) {
        all.add(new Output("argument '" + in.argument() + "' after the call", -1, in.tensor()));
      }
    }
    return all;
  }

}
