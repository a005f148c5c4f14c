package dev.opcheck4j.checks.fake;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.OpCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.registration.AnyKernelCheck;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.DispatchTable;

/**
 * The op has a Meta kernel, a composite kernel or an Autograd kernel of its own (whose inner ops bring
 * their fake kernels), so it can run on meta/fake tensors (torch.compile, export), or it needs none: it
 * returns nothing and only writes its arguments.
 */
public final class FakeMissingCheck extends CheckBase implements OpCheck {
  public static final String ID = "fake.missing";

  /** Why an op that returns nothing and only writes its arguments needs no Meta kernel, for facts. */
  public static final Fact TRIVIAL_NOTE = Fact.of("note", "the op returns nothing and only writes its (a!)"
      + " arguments: FakeTensorMode runs it as a no-op (PyTorch's trivial fake implementation), as opcheck does");

  /** Why an op with an Autograd kernel alone is served (on meta and on the device under test), for facts. */
  public static final Fact AUTOGRAD_NOTE = Fact.of("note", "a call on this device enters the op's Autograd kernel,"
      + " which reaches the device through the ops it calls (as a custom autograd function calls an inner op);"
      + " the example checks run it there");

  /** Why an op of one of PyTorch's own namespaces needs no Meta kernel, for facts. */
  public static Fact fallbackNote(String namespace) {
    return Fact.of("note", "FakeTensorMode runs an op of the '" + namespace + "' namespace that has no Meta kernel"
        + " on its own kernel with zero-filled inputs (PyTorch's fallback for the namespaces it maintains), as"
        + " opcheck does; its meta checks here do the same");
  }

  public FakeMissingCheck() {
    super(Declaration.error(ID, "the op has a Meta kernel or a composite kernel")
        .requires(AnyKernelCheck.ID));
  }

  @Override
  public Verdict evaluateOp(Subject s) {
    DispatchTable t = s.op().table();
    var serving = t.kernelServing(Device.META.dispatchKey());
    if (serving.isPresent()) {
      return Verdict.passed(Fact.of("kernel", t.describe(serving.get())));
    }
    var autograd = t.ownAutogradKernel(Device.META);
    if (autograd.isPresent()) {
      // FakeTensorMode enters the Autograd kernel, and the ops it calls bring their own fake kernels
      return Verdict.passed(Fact.of("kernel", t.describe(autograd.get())), AUTOGRAD_NOTE);
    }
    if (s.op().hasTrivialFakeImpl()) {
      return Verdict.passed(Fact.of("kernel", "none needed"), TRIVIAL_NOTE);
    }
    if (s.op().hasFakeFallback()) {
      return Verdict.passed(Fact.of("kernel", "none needed"), fallbackNote(s.op().namespace()));
    }
    return Verdict.failed(Finding.of(
        "a Meta kernel or a composite kernel for " + s.op().name(),
        "kernels only at " + String.join(", ", t.keys()),
        "add STABLE_TORCH_LIBRARY_IMPL(" + s.op().namespace() + ", Meta, m) with a kernel that computes"
            + " the output's sizes, strides and dtype without touching data"
            + (s.op().schema().mutableArguments().isEmpty() ? ""
                : "; an op that only writes its (a!) arguments and returns nothing ('-> ()') needs none"),
        new Cause.Contract("no meta kernel", s.op().name())));
  }
}
