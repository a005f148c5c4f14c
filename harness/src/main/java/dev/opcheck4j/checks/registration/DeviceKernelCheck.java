package dev.opcheck4j.checks.registration;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.DeviceCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.fake.FakeMissingCheck;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.DispatchTable;

/**
 * For the device under test, the op has a kernel for that backend, a composite kernel, or an Autograd
 * kernel of its own (which calls other ops: PyTorch's dispatcher and FakeTensorMode run it); on meta, an op
 * that returns nothing and only writes its arguments needs none.
 */
public final class DeviceKernelCheck extends CheckBase implements DeviceCheck {
  public static final String ID = "registration.device-kernel";

  public DeviceKernelCheck() {
    super(Declaration.error(ID, "the op has a kernel for the device under test, or a composite kernel")
        .requires(AnyKernelCheck.ID));
  }

  @Override
  public Verdict evaluateDevice(Subject s) {
    DispatchTable table = s.op().table();
    String key = s.device().dispatchKey();
    var serving = table.kernelServing(key);
    if (serving.isPresent()) {
      return Verdict.passed(Fact.of("kernel", table.describe(serving.get())));
    }
    var autograd = table.ownAutogradKernel(s.device());
    if (autograd.isPresent()) {
      return Verdict.passed(Fact.of("kernel", table.describe(autograd.get())), FakeMissingCheck.AUTOGRAD_NOTE);
    }
    if (s.device() == Device.META && s.op().hasTrivialFakeImpl()) {
      return Verdict.passed(Fact.of("kernel", "none needed"), FakeMissingCheck.TRIVIAL_NOTE);
    }
    if (s.device() == Device.META && !s.op().table().serves(Device.META) && s.op().hasFakeFallback()) {
      return Verdict.passed(Fact.of("kernel", "none needed"), FakeMissingCheck.fallbackNote(s.op().namespace()));
    }
    return Verdict.failed(Finding.of(
        "a " + key + " kernel, or a composite kernel, for " + s.op().name(),
        "kernels only at " + String.join(", ", table.keys()),
        "register one with STABLE_TORCH_LIBRARY_IMPL("
            + s.op().namespace()
            + ", "
            + key
            + ", m), or implement the op at CompositeExplicitAutograd from other ops",
        new Cause.Contract("no kernel for the device", key)));
  }
}
