package dev.opcheck4j.checks.autograd;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.DeviceCheck;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.torch.DispatchTable;

/**
 * Autograd is registered at an autograd key, PyTorch's own rule ({@code test_autograd_registration}
 * of torch.library.opcheck), once per op and device. Passed when a kernel sits at Autograd,
 * Autograd&lt;Device&gt; or CompositeImplicitAutograd. Otherwise one probe ({@link GradProbe}): it fails
 * when an output requires grad, because autograd then happened inside a backend kernel, invisible to
 * the dispatcher. An op whose gradients simply stop is not this check's finding (opcheck passes it):
 * {@link DifferentiableCheck} warns about it.
 */
public final class AutogradRegistrationCheck extends CheckBase implements DeviceCheck {
  public static final String ID = "autograd.registration";

  public AutogradRegistrationCheck() {
    super(Declaration.error(ID, "autograd is registered at an autograd key, not recorded inside a backend kernel (as opcheck)")
        .requires(KernelErrorCheck.ID));
  }

  @Override
  public Verdict evaluateDevice(Subject s) throws Exception {
    DispatchTable table = s.op().table();
    return GradProbe.judge(s, probe -> {
      for (OpCall.Output o : probe.returned()) {
        if (o.tensor().requires_grad()) {
          return Verdict.failed(Finding.of(
              "no output requires grad unless autograd is registered at Autograd/" + s.device().autogradKey(),
              o.label() + " requires grad although the op has kernels only at " + String.join(", ", table.keys())
                  + ": autograd registered at a backend key (differentiable aten calls, or a torch::autograd::Function,"
                  + " inside the kernel)",
              "register the backward at the Autograd key, or implement the op as CompositeImplicitAutograd"
                  + " from differentiable aten ops; a backend kernel must not record autograd history",
              new Cause.Contract("autograd at a backend key", o.label())), probe.example());
        }
      }
      return Verdict.passed(Fact.of("probe", "no output requires grad with inputs "
          + String.join(", ", probe.inputs()) + " requiring grad (no autograd kernel, none recorded)"), probe.example());
    });
  }
}
