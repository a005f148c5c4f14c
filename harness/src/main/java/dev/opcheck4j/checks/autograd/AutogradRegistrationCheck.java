package dev.opcheck4j.checks.autograd;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.torch.DispatchTable;
import java.util.List;

/**
 * Autograd is registered at the right key. With an input that requires grad: passed when a kernel
 * sits at Autograd, Autograd&lt;Device&gt; or CompositeImplicitAutograd. Otherwise the op is called
 * with libtorch's autograd fallback doing nothing (TorchRuntime sets it so for the process, as opcheck
 * does for this test), and it fails when an output
 * requires grad (autograd happened inside a backend kernel, invisible to the dispatcher) or, stricter
 * than opcheck, when a floating-point output does not (gradients stop there silently).
 */
public final class AutogradRegistrationCheck extends CheckBase implements ExampleCheck {
  public static final String ID = "autograd.registration";

  public AutogradRegistrationCheck() {
    super(Declaration.error(ID, "autograd is registered at an autograd key, or gradients do not flow at all")
        .requires(KernelErrorCheck.ID));
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    List<String> grads = ex.tensors().stream().filter(t -> t.tensor().requires_grad())
        .map(BoundExample.TensorInput::argument).toList();
    if (grads.isEmpty()) {
      return Verdict.skipped("no input requires grad in this example (set \"requires_grad\": true on a tensor)");
    }
    DispatchTable table = s.op().table();
    var autograd = table.autogradKernel(s.device());
    if (autograd.isPresent()) {
      return Verdict.passed(Fact.of("kernel", table.describe(autograd.get())));
    }
    // the autograd fallback is "nothing" for the whole process (TorchRuntime), as opcheck sets it here
    OpCall.Outputs out = OpCall.call(s, ex);
    Fact example = OpCall.exampleFact(s, ex);
    for (OpCall.Output o : out.tensors()) {
      if (o.tensor().requires_grad()) {
        return Verdict.failed(Finding.of(
            "no output requires grad unless autograd is registered at Autograd/" + s.device().autogradKey(),
            o.label() + " requires grad although the op has kernels only at " + String.join(", ", table.keys())
                + ": autograd registered at a backend key (differentiable aten calls inside the kernel)",
            "register the backward at the Autograd key, or implement the op as CompositeImplicitAutograd"
                + " from differentiable aten ops; a backend kernel must not record autograd history",
            new Cause.Contract("autograd at a backend key", o.label())), example);
      }
    }
    for (OpCall.Output o : out.tensors()) {
      if (o.tensor().is_floating_point() && !o.tensor().requires_grad()) {
        return Verdict.failed(Finding.of(
            "gradients flow from " + o.label() + " back to " + String.join(", ", grads),
            o.label() + " does not require grad although '" + grads.get(0)
                + "' does: gradients stop here silently (no autograd kernel)",
            "register autograd (Autograd key or CompositeImplicitAutograd), or mark the op"
                + " non-differentiable in the spec: \"skip\": [\"autograd\"] with a \"why\"",
            new Cause.Contract("gradients stop", o.label())), example);
      }
    }
    return Verdict.passed(Fact.of("outputs", "no floating-point output"));
  }
}
