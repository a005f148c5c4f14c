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
import dev.opcheck4j.checks.gradcheck.JacobianCheck;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.GradientInputs;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.DispatchTable;
import java.util.List;

/**
 * Gradients flow through the op, or the spec says they need not ({@code "differentiable": false}).
 * An op with backend kernels only is probed once per device with inputs that require grad ({@link
 * GradProbe}); a floating-point output that then does not require grad means gradients stop at this
 * op. opcheck passes such an op, so this is a warning, never a failure: it is a correct op for
 * inference, and a silent zero gradient in training.
 *
 * <p>The warning is for gradients the harness asked for on its own. When the spec's examples ask for
 * them ({@code "requires_grad": true}), that is a claim, and {@link JacobianCheck} holds the op to it as
 * torch.autograd.gradcheck does: this check then says Skipped and why.
 */
public final class DifferentiableCheck extends CheckBase implements DeviceCheck {
  public static final String ID = "autograd.differentiable";

  public DifferentiableCheck() {
    super(Declaration.warning(ID, "gradients flow through the op, or the spec declares it non-differentiable")
        .requires(KernelErrorCheck.ID, AutogradRegistrationCheck.ID));
  }

  @Override
  public Verdict evaluateDevice(Subject s) throws Exception {
    if (!s.spec().differentiable()) {
      return Verdict.skipped("the spec declares the op non-differentiable (\"differentiable\": false)");
    }
    DispatchTable table = s.op().table();
    if (table.autogradKernel(s.device()).isEmpty() && s.spec().skipReason(JacobianCheck.ID).isEmpty()) {
      for (Example given : s.spec().examples()) {
        List<String> asked = GradientInputs.requested(s.op().schema(), given);
        if (!asked.isEmpty()) {
          return Verdict.skipped("the spec asks for gradients (" + String.join(", ", asked) + " in " + given.ref()
              + (asked.size() == 1 ? " requires" : " require") + " grad): a claim " + JacobianCheck.ID + " holds the op to, failing where they stop;"
              + " this warning is for gradients the harness probed on its own");
        }
      }
    }
    return GradProbe.judge(s, probe -> {
      for (OpCall.Output o : probe.observed()) {
        if (o.tensor().is_floating_point() && !o.tensor().requires_grad()) {
          return Verdict.failed(Finding.of(
              "gradients flow from " + o.label() + " back to " + String.join(", ", probe.inputs()),
              "gradients stop at this op: " + o.label() + " does not require grad although '" + probe.inputs().get(0)
                  + "' does (kernels only at " + String.join(", ", table.keys()) + ")",
              "register an Autograd kernel (or implement the op as CompositeImplicitAutograd), or declare it"
                  + " non-differentiable in the spec: \"differentiable\": false",
              new Cause.Contract("gradients stop", o.label())), probe.example());
        }
      }
      return Verdict.passed(Fact.of("outputs", "no floating-point output that could stop gradients"), probe.example());
    });
  }
}
