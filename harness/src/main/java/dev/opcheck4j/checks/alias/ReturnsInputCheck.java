package dev.opcheck4j.checks.alias;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckInfo.Scope;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;

/**
 * No output is the very input tensor (the same TensorImpl): an operator below autograd must return
 * new tensors or views, or autograd's bookkeeping of the input is corrupted. Annotations do not excuse it.
 */
public final class ReturnsInputCheck extends CheckBase {
  public static final String ID = "alias.returns-input";

  public ReturnsInputCheck() {
    super(CheckInfo.error(ID, Scope.EXAMPLE, "no output is the very input tensor object")
        .requires(KernelErrorCheck.ID)
        .onGeneratedInputs());
  }

  @Override
  public Verdict evaluate(Subject s) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    OpCall.Outputs out = OpCall.call(s, ex);
    if (out.tensors().isEmpty()) {
      return Verdict.skipped("the op returns no tensor");
    }
    for (OpCall.Output o : out.tensors()) {
      for (BoundExample.TensorInput in : ex.tensors()) {
        if (o.tensor().is_same(in.tensor())) {
          return Verdict.failed(
              o.label() + " is a new tensor or a view",
              o.label() + " is the input tensor '" + in.argument() + "' itself",
              "return a new tensor (or a view made with view/as_strided); for an in-place op return"
                  + " nothing ('-> ()')",
              OpCall.exampleFact(s, ex));
        }
      }
    }
    return Verdict.passed(Fact.of("outputs compared", out.tensors().size() + " with " + ex.tensors().size() + " inputs"));
  }
}
