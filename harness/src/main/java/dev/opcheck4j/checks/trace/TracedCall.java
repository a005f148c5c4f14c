package dev.opcheck4j.checks.trace;

import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.Progress;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.SymbolicTrace;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;

/**
 * One call of the op under test on the companion's symbolic tensors, as opcheck's test_aot_dispatch_dynamic
 * makes it on FakeTensors with symbolic sizes: the tensor arguments are the example's, on meta, with the
 * dims a {@link Variant} names symbolic; the kernel the op has for meta (Meta, CompositeExplicitAutograd or
 * CompositeImplicitAutograd) runs; what it did comes back as the companion's log.
 *
 * @param variant which dims were symbolic
 * @param error what the kernel raised, or empty
 * @param events what it did with the symbolic tensors (guards, calls that raise, data-dependent guards)
 * @param outputs each output tensor's label and sizes, when it returned
 */
record TracedCall(Variant variant, Optional<String> error, List<SymbolicTrace.Event> events, List<Output> outputs) {

  /** An output tensor as the trace left it. */
  record Output(String label, SymbolicTrace.Sizes sizes) {}

  /**
   * Which dims are symbolic: {@code masks} has one entry per schema argument (bit d for dim d; -1 all);
   * {@code description} says it for a reader ("every dim", "dim 0 of 'x'").
   */
  record Variant(long[] masks, String description) {
    static Variant all(int arguments) {
      long[] m = new long[arguments];
      java.util.Arrays.fill(m, -1L);
      return new Variant(m, "every dim of size 2 or more symbolic");
    }
  }

  /** The first event of {@code kind}, if any. */
  Optional<SymbolicTrace.Event> first(String kind) {
    return events.stream().filter(e -> e.kind().equals(kind)).findFirst();
  }

  List<SymbolicTrace.Event> all(String kind) {
    return events.stream().filter(e -> e.kind().equals(kind)).toList();
  }

  /**
   * The kernel the traced call enters first, as AOTAutograd's trace does on a FakeTensor: the op's Autograd
   * kernel (a custom autograd function that calls an inner op through the dispatcher), else the one that
   * serves meta (Meta, catch-all or CompositeImplicitAutograd); empty when there is none.
   */
  static Optional<String> tracedKernel(Subject s) {
    Optional<String> autograd = s.op().table().ownAutogradKernel(Device.META);
    return autograd.isPresent() ? autograd : s.op().table().kernelServing(Device.META.dispatchKey());
  }

  /** Why the op cannot be traced here (a Skipped reason), or empty. */
  static Optional<String> cannotTrace(Subject s) {
    if (tracedKernel(s).isEmpty()) {
      return Optional.of(Coverage.NOT_APPLICABLE + "the op has no Autograd, Meta, catch-all or CompositeImplicitAutograd kernel"
          + " for torch.compile to trace (its fake implementation, if any, is PyTorch's own)");
    }
    return SymbolicTrace.unavailable();
  }

  /**
   * The device the symbolic tensors report: the device under test for an Autograd or
   * CompositeImplicitAutograd kernel, which FakeTensor runs outside any kernel invocation; meta for a Meta
   * (or CompositeExplicitAutograd) kernel, which FakeTensorMode runs inside in_kernel_invocation_manager,
   * where a FakeTensor says meta.
   */
  static Device reported(Subject s) {
    String kernel = tracedKernel(s).orElse("");
    return kernel.equals("CompositeImplicitAutograd") || kernel.startsWith("Autograd") ? s.device() : Device.META;
  }

  /**
   * Why the trace says nothing about an op with {@code tags}: FakeTensorMode runs no C++ kernel of an op
   * tagged dynamic_output_shape or data_dependent_output (torch/_subclasses/fake_tensor.py raises
   * DynamicOutputShapeException / DataDependentOutputException unless the op has a Python fake
   * implementation, which opcheck4j cannot see); empty for any other op.
   */
  static Optional<String> notTraced(OpTags tags) {
    return tags.firstOf(OpTags.DYNAMIC_OUTPUT_SHAPE, OpTags.DATA_DEPENDENT_OUTPUT)
        .map(t -> Coverage.NOT_APPLICABLE + "the op is tagged " + tags.describe(t) + ": FakeTensorMode runs none of its C++"
            + " kernels under torch.compile but raises " + (t.equals(OpTags.DYNAMIC_OUTPUT_SHAPE) ? "DynamicOutputShapeException"
            : "DataDependentOutputException") + " unless it has a Python fake implementation (torch.library.register_fake),"
            + " which opcheck4j cannot see");
  }

  /** The kernel the trace runs, for facts. */
  static Fact kernelFact(Subject s) {
    String key = tracedKernel(s).orElse("none");
    return Fact.of("traced kernel", key + " (symbolic tensors report " + reported(s).label() + ")");
  }

  /** Each symbolic dim alone (dims of size 2 or more of each tensor argument), then all of them together. */
  static List<Variant> variants(Subject s, BoundExample meta) {
    int n = meta.values().size();
    List<Variant> out = new ArrayList<>();
    for (BoundExample.TensorInput in : meta.tensors()) {
      if (!meta.values().get(in.argIndex()).isTensor()) {
        continue;
      }
      long[] sizes = in.tensor().sizes().vec().get();
      for (int d = 0; d < sizes.length && d < 63; d++) {
        if (sizes[d] >= 2) {
          long[] m = new long[n];
          m[in.argIndex()] = 1L << d;
          out.add(new Variant(m, "dim " + d + " of '" + in.argument() + "' symbolic"));
        }
      }
    }
    out.add(Variant.all(n));
    return out;
  }

  static BoundExample bindMeta(Subject s) throws ExampleException {
    return OpCall.bind(s, Device.META);
  }

  /** Calls the op once on symbolic copies of {@code meta}'s tensors. */
  static TracedCall run(Subject s, BoundExample meta, Variant variant) {
    Progress.step("the traced call (" + variant.description() + ")");
    SymbolicTrace.begin();
    Device reported = reported(s);
    List<IValue> values = new ArrayList<>(meta.values());
    for (BoundExample.TensorInput in : meta.tensors()) {
      // list elements stay concrete: the symbolic tensor replaces whole Tensor arguments only
      if (meta.values().get(in.argIndex()).isTensor() && in.tensor().defined()) {
        Tensor sym = SymbolicTrace.symbolic(in.tensor(), in.argument(), variant.masks()[in.argIndex()], reported);
        values.set(in.argIndex(), new IValue(sym));
      }
    }
    BoundExample traced = new BoundExample(values, meta.tensors(), meta.description());
    Optional<String> error = Optional.empty();
    List<Output> outputs = new ArrayList<>();
    try {
      OpCall.Outputs out = OpCall.call(s, traced, "the traced call (" + variant.description() + ")");
      for (OpCall.Output o : out.tensors()) {
        if (o.tensor().defined()) {
          outputs.add(new Output(o.label(), SymbolicTrace.sizes(o.tensor())));
        }
      }
    } catch (OpCall.KernelError e) {
      error = Optional.of(e.getMessage());
    }
    return new TracedCall(variant, error, SymbolicTrace.events(), outputs);
  }

  /**
   * The message of a data access the trace stopped at, or empty: the symbolic tensor has no storage, and
   * raises FakeTensor's message; across the stable ABI the kernel may see only the shim call that failed.
   */
  Optional<String> dataAccess() {
    return error.filter(m -> DATA_ACCESS.matcher(m).find());
  }

  private static final java.util.regex.Pattern DATA_ACCESS = java.util.regex.Pattern.compile(
      "Cannot access data pointer|Cannot access storage|aoti_torch_get_(?:mutable_|const_)?data_ptr|aoti_torch_get_storage");

  /** What stopped the trace, in words, for a Skipped reason of a check that judges something else. */
  String stoppedAt() {
    if (first("symbolic-call").isPresent()) {
      SymbolicTrace.Event e = first("symbolic-call").get();
      return e.text() + " on " + e.where() + " raised (trace.symbolic-sizes)";
    }
    if (first("data-dependent").isPresent()) {
      return "a data-dependent guard (trace.data-dependent)";
    }
    if (dataAccess().isPresent()) {
      return "a data access (trace.data)";
    }
    return "the kernel raised: " + error.orElse("");
  }
}
