package dev.opcheck4j.checks.gradcheck;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorCopies;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Backward is linear in the incoming gradient: a zero grad_output gives zero (or undefined) input
 * gradients, and doubling grad_output doubles them. One forward, three backward calls on its graph.
 */
public final class GradOutputCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "gradcheck.grad-output";

  public GradOutputCheck() {
    super(Declaration.error(ID, "backward is linear in grad_output (zero gives zero, double gives double)")
        .requires(KernelErrorCheck.ID)
        .onAFewGeneratedInputs());
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    GradStart start = GradStart.of(s);
    if (start.skip() != null) {
      return Verdict.skipped(start.skip());
    }
    GradFunction f = start.f();
    BoundExample ex = start.at();
    List<Tensor> outputs = start.differentiable().stream().map(OpCall.Output::tensor).toList();
    if (outputs.isEmpty()) {
      return Verdict.skipped(GradStart.NO_BACKWARD);
    }
    List<Tensor> inputs = f.inputs(ex);
    SplittableRandom random = new SplittableRandom(s.seed());
    List<Tensor> zero = new ArrayList<>();
    List<Tensor> g = new ArrayList<>();
    List<Tensor> g2 = new ArrayList<>();
    for (Tensor o : outputs) {
      zero.add(torch.zeros_like(o));
      Tensor v = Jacobians.unitVector(random, o);
      g.add(v);
      g2.add(v.mul(new Scalar(2.0)));
    }
    List<Tensor> fromZero = f.vjp(outputs, inputs, zero);
    List<Tensor> once = f.vjp(outputs, inputs, g);
    List<Tensor> twice = f.vjp(outputs, inputs, g2);
    Fact example = OpCall.exampleFact(s, ex);
    for (int k = 0; k < inputs.size(); k++) {
      String name = f.names.get(k);
      if (fromZero.get(k) != null && max(TensorCopies.doubles(fromZero.get(k).abs())) != 0) {
        return Verdict.failed(Finding.of("a zero grad_output gives a zero or undefined gradient for '" + name + "'",
            "max |grad " + name + "| " + max(TensorCopies.doubles(fromZero.get(k).abs())) + " from a zero grad_output",
            "the backward adds a term that does not depend on grad_output; multiply every term by it",
            new Cause.ValueMismatch("gradient of '" + name + "' from a zero grad_output")), example);
      }
      double[] a = once.get(k) == null ? new double[(int) inputs.get(k).numel()] : TensorCopies.doubles(once.get(k));
      double[] b = twice.get(k) == null ? new double[a.length] : TensorCopies.doubles(twice.get(k));
      for (int j = 0; j < a.length; j++) {
        if (Math.abs(b[j] - 2 * a[j]) > 1e-12 + 1e-10 * Math.abs(2 * a[j])) {
          return Verdict.failed(Finding.of("doubling grad_output doubles the gradient of '" + name + "'",
              "element " + j + ": " + b[j] + " instead of " + (2 * a[j]),
              "the backward is not linear in grad_output (a constant or nonlinear term)",
              new Cause.ValueMismatch("gradient of '" + name + "' from a doubled grad_output")), example);
        }
      }
    }
    return Verdict.passed(Fact.of("calls", f.forwardCalls + " forward, " + f.backwardCalls + " backward"));
  }

  private static double max(double[] xs) {
    double m = 0;
    for (double x : xs) {
      m = Math.max(m, Double.isNaN(x) ? Double.POSITIVE_INFINITY : x);
    }
    return m;
  }
}
