package dev.opcheck4j.checks.gradcheck;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.torch.NativeStrings;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * gradcheck's check_undefined_grad (on by default in torch.autograd.gradcheck), on ops with several
 * outputs that require grad, in gradcheck's two cases: every grad_output undefined at once, then each
 * output's in turn undefined with the others zero. The backward must neither raise nor give an input
 * gradient other than zero or undefined. An output left out of autograd.grad's roots reaches the op's
 * backward as an undefined gradient; for every output at once, each goes through autograd's UndefinedGrad
 * node, as gradcheck does, which the companion library provides ({@link UndefinedGradNode}). Without it, the
 * passed result says that case was not checked.
 */
public final class UndefinedGradCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "gradcheck.undefined-grad";
  static final String ALL_UNDEFINED = "every grad_output undefined at once";

  public UndefinedGradCheck() {
    super(Declaration.error(ID, "with one output's gradient undefined, or all, backward gives zero or undefined input"
            + " gradients and does not raise (gradcheck's check_undefined_grad, multi-output ops)")
        .requires(KernelErrorCheck.ID));
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    var returns = s.op().schema().returns().stream().filter(r -> r.type().holdsTensor()).toList();
    if (returns.size() < 2 && returns.stream().noneMatch(r -> r.type().unwrapOptional().isList())) {
      // decided from the schema, before binding anything: most ops return one tensor
      return Verdict.skipped(Coverage.NOT_APPLICABLE + "the op returns " + (returns.isEmpty() ? "no tensor" : "one tensor")
          + ": undefined gradients are checked on ops with several outputs");
    }
    GradStart start = GradStart.of(s);
    List<OpCall.Output> outputs = start.differentiable();
    if (start.skip() != null || outputs.size() < 2) {
      return Verdict.skipped(start.skip() != null ? start.skip()
          : (outputs.isEmpty() ? "no output requires grad" : "one output requires grad")
          + ": undefined gradients are checked on ops with several");
    }
    GradFunction f = start.f();
    BoundExample ex = start.at();
    List<Tensor> inputs = f.inputs(ex);
    UndefinedGradNode node = UndefinedGradNode.find();
    if (node instanceof UndefinedGradNode.Available undefined) {
      // gradcheck's first case: UndefinedGrad after every output, zero grad_outputs given to it
      List<Tensor> roots = new ArrayList<>();
      List<Tensor> zeros = new ArrayList<>();
      for (OpCall.Output o : outputs) {
        roots.add(undefined.apply(o.tensor()));
        zeros.add(torch.zeros_like(o.tensor()));
      }
      Verdict v = judge(s, f, ex, inputs, roots, zeros, ALL_UNDEFINED);
      if (v != null) {
        return v;
      }
    }
    for (int undefined = 0; undefined < outputs.size(); undefined++) {
      List<Tensor> roots = new ArrayList<>();
      List<Tensor> zeros = new ArrayList<>();
      for (int o = 0; o < outputs.size(); o++) {
        if (o != undefined) {
          roots.add(outputs.get(o).tensor());
          zeros.add(torch.zeros_like(outputs.get(o).tensor()));
        }
      }
      Verdict v = judge(s, f, ex, inputs, roots, zeros, outputs.get(undefined).label() + "'s grad_output undefined, the others' zero");
      if (v != null) {
        return v;
      }
    }
    String each = "each in turn given an undefined grad_output, the others zero";
    if (node instanceof UndefinedGradNode.Missing m) {
      return Verdict.passed(Fact.of("outputs", outputs.size() + " require grad; " + each),
          Fact.of("note", ALL_UNDEFINED + ": not checked (gradcheck's UndefinedGrad node: " + m.reason() + ")"));
    }
    return Verdict.passed(Fact.of("outputs", outputs.size() + " require grad; " + ALL_UNDEFINED + ", then " + each));
  }

  /** The finding of one case, or null when the backward handled it. */
  private static Verdict judge(Subject s, GradFunction f, BoundExample ex, List<Tensor> inputs, List<Tensor> roots,
      List<Tensor> zeros, String which) throws OpCall.KernelError {
    List<Tensor> grads;
    try {
      grads = f.vjp(roots, inputs, zeros);
    } catch (RuntimeException e) {
      return Verdict.failed(Finding.of("backward runs with " + which,
          "backward raised: " + NativeStrings.firstLine(e.getMessage()),
          "a backward must treat an undefined grad_output as zero (PyTorch's \"Notes about undefined output"
              + " gradients\" in tools/autograd/derivatives.yaml): check grad.defined() before using it",
          new Cause.Rejection(NativeStrings.firstLine(e.getMessage()))), OpCall.exampleFact(s, ex));
    }
    for (int k = 0; k < inputs.size(); k++) {
      if (grads.get(k) == null) {
        continue;
      }
      double max = 0;
      for (double x : TensorCopies.doubles(grads.get(k).abs())) {
        max = Math.max(max, Double.isNaN(x) ? Double.POSITIVE_INFINITY : x);
      }
      if (max != 0) {
        return Verdict.failed(Finding.of("a zero or undefined gradient for '" + f.names.get(k) + "' with " + which,
            "max |grad " + f.names.get(k) + "| " + max,
            "the backward gives a gradient where no output asks for one: it must treat an undefined grad_output"
                + " as zero and add no term that does not depend on the grad_outputs",
            new Cause.ValueMismatch("gradient of '" + f.names.get(k) + "' with " + which)),
            OpCall.exampleFact(s, ex));
      }
    }
    return null;
  }
}
