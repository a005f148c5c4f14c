package dev.opcheck4j.checks.autograd;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.DispatchTable;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.generate.GradientInputs;
import dev.opcheck4j.spec.Example;
import java.util.List;
import java.util.function.Function;

/**
 * One call of an op on one device with inputs that require grad, as opcheck's {@code
 * test_autograd_registration} makes it: the first of the op's examples that binds, with every
 * floating-point input marked ({@link GradientInputs}), whatever the example itself says. The autograd
 * fallback does nothing in a worker (TorchRuntime sets it so, as opcheck does for this test), so an
 * output requires grad only if the op recorded autograd history itself.
 *
 * @param inputs the arguments whose tensors require grad
 * @param returned the tensors the call returned that are not one of its inputs (opcheck skips those)
 * @param observed the tensors the call returned, then every written argument after the call
 * @param example the {@code example} fact of the probe
 */
record GradProbe(List<String> inputs, List<OpCall.Output> returned, List<OpCall.Output> observed,
    Fact example) {
  /** Why no probe could be made, as a skip reason. */
  static final class Unavailable extends Exception {
    Unavailable(String reason) {
      super(reason);
    }
  }

  /**
   * Passed when the op has autograd on the device (nothing to probe), skipped when no probe can be
   * made, else what {@code judge} makes of the probe.
   */
  static Verdict judge(Subject s, Function<GradProbe, Verdict> judge) throws Exception {
    DispatchTable table = s.op().table();
    var autograd = table.autogradKernel(s.device());
    if (autograd.isPresent()) {
      return Verdict.passed(Fact.of("kernel", table.describe(autograd.get())));
    }
    try {
      return judge.apply(of(s));
    } catch (Unavailable e) {
      return Verdict.skipped(e.getMessage());
    }
  }

  static GradProbe of(Subject s) throws Unavailable {
    if (s.spec().examples().isEmpty()) {
      throw new Unavailable("no examples for this op");
    }
    String raised = null;
    for (Example given : s.spec().examples()) {
      Example marked = GradientInputs.requiringGrad(s.op().schema(), given);
      Subject one = new Subject(s.library(), s.op(), s.spec(), s.device(), marked, s.seed());
      BoundExample ex;
      try {
        ex = OpCall.bind(one, s.device());
      } catch (ExampleException e) {
        continue; // an example that does not fit is reported once, as an input error, by the runner
      }
      List<String> grads = ex.tensors().stream().filter(t -> t.tensor().requires_grad())
          .map(BoundExample.TensorInput::argument).distinct().toList();
      if (grads.isEmpty()) {
        continue;
      }
      try {
        OpCall.Outputs out = OpCall.call(one, ex);
        List<OpCall.Output> returned = out.tensors().stream()
            .filter(o -> ex.tensors().stream().noneMatch(in -> in.tensor().is_same(o.tensor()))).toList();
        return new GradProbe(grads, returned, OpCall.observed(one, ex, out), OpCall.exampleFact(one, ex));
      } catch (OpCall.KernelError e) {
        raised = e.getMessage();
      }
    }
    throw new Unavailable(raised == null
        ? "no floating-point tensor input the op does not write to (only those can require grad) in any example"
        : "the kernel raised on every example once its floating-point inputs require grad: " + raised);
  }
}
