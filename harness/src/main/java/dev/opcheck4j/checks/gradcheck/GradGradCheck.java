package dev.opcheck4j.checks.gradcheck;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.spec.OpSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.bytedeco.pytorch.Tensor;

/**
 * Second-order gradients, as torch.autograd.gradgradcheck checks them (OpInfo's test_fn_gradgrad): the
 * op's backward, as a function of its inputs and of random grad_outputs, has its Jacobian (the second
 * derivative autograd gives) compared with finite differences of the backward, in fast mode with a slow
 * re-run on failure, at gradcheck's settings. An op whose entry says {@code "double_backward": false}
 * is held to that instead (test_fn_fail_gradgrad): differentiating its backward must raise.
 *
 * <p>Runs where the first derivative is right (it requires gradcheck.jacobian), on the examples and, as
 * gradcheck.jacobian, on a tenth of the generated inputs (at least 3): each backward call builds a graph
 * of its own.
 */
public final class GradGradCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "gradcheck.gradgrad";
  /** Keeps the grad_outputs apart from the random directions that use the run's seed itself. */
  private static final long GRAD_OUTPUTS = 0x6772616467726164L;

  public GradGradCheck() {
    super(Declaration.error(ID, "second derivatives match finite differences of the backward (gradgradcheck);"
            + " with \"double_backward\": false, differentiating the backward raises")
        .requires(JacobianCheck.ID)
        .onAFewGeneratedInputs());
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    GradStart start = GradStart.of(s);
    if (start.skip() != null) {
      return Verdict.skipped(start.skip());
    }
    OpSpec.Gradcheck opts = s.spec().gradcheck();
    // gradgradcheck's grad_outputs: uniform in [-1, 1), one per output that requires grad
    SplittableRandom random = new SplittableRandom(s.seed() ^ GRAD_OUTPUTS);
    List<Tensor> v = new ArrayList<>();
    for (OpCall.Output o : start.differentiable()) {
      v.add(Jacobians.uniform(random, o.tensor()));
    }
    if (v.isEmpty()) {
      return Verdict.skipped(GradStart.NO_BACKWARD);
    }
    GradFunction backward = start.f().backward(start.at(), start.outputs(), v);
    if (!opts.doubleBackward()) {
      return mustRaise(s, backward);
    }
    Jacobians.Judged judged;
    try {
      if (backward.forward(backward.fresh(true)).isEmpty()) {
        return Verdict.skipped("autograd gives no input a gradient at this example: there is no backward to"
            + " differentiate");
      }
      judged = Jacobians.judge(o -> o.fast() ? Jacobians.fast(backward, o, s.seed()) : Jacobians.slow(backward, o),
          opts);
    } catch (OpCall.KernelError e) {
      return Verdict.skipped("differentiating the backward raises (" + e.getMessage() + "): the op has no second"
          + " derivative; declare \"double_backward\": false on the op entry to make that its contract, which this"
          + " check then holds it to");
    }
    Jacobians.Comparison c = judged.c();
    List<Fact> facts = judged.facts(backward, opts);
    if (c.ok()) {
      return Verdict.passed(facts);
    }
    String expected = "the second derivative autograd gives (the Jacobian of the backward) matches finite"
        + " differences of the backward within atol " + opts.atol() + ", rtol " + opts.rtol();
    String hint = "the first derivative is right and its own derivative is not: a straight-through term"
        + " (value + (s - s.detach())) or a backward built from detach()ed aten calls gives the right gradient and a"
        + " wrong second one; build the backward from differentiable aten calls on the inputs, or declare"
        + " \"double_backward\": false if the op has no second derivative";
    Finding found;
    if (c.reentrancy() != null) {
      found = Jacobians.nondeterministic(c, "second derivative", "backward's backward");
    } else if (c.zeroGradient() != null) {
      found = Finding.of(expected, "the second derivative of " + c.zeroGradient() + " is zero where finite"
          + " differences of the backward say it is not (" + c.worst() + "): the second derivative is silently zero",
          hint, new Cause.ValueMismatch("second derivative"));
    } else {
      found = Finding.of(expected, c.worst(), hint, new Cause.ValueMismatch("second derivative"));
    }
    return Verdict.failed(found.with(facts.toArray(Fact[]::new)).withHeatmaps(c.heatmaps()),
        Fact.of("example", s.example().ref()));
  }

  /**
   * OpInfo's test_fn_fail_gradgrad: an op declared to have no second derivative must raise when its
   * backward is differentiated, not return numbers (zeros, typically, from a straight-through gradient).
   */
  private static Verdict mustRaise(Subject s, GradFunction backward) throws Exception {
    BoundExample at = backward.fresh(true);
    List<Tensor> grads = new ArrayList<>();
    try {
      for (OpCall.Output g : backward.forward(at)) {
        if (g.tensor().requires_grad()) {
          grads.add(g.tensor());
        }
      }
      if (!grads.isEmpty()) {
        List<Tensor> ones = new ArrayList<>();
        for (Tensor g : grads) {
          ones.add(org.bytedeco.pytorch.global.torch.ones_like(g));
        }
        double max = 0;
        for (Tensor second : backward.vjp(grads, backward.inputs(at), ones)) {
          if (second != null) {
            for (double x : TensorCopies.doubles(second.abs())) {
              max = Math.max(max, Double.isNaN(x) ? Double.POSITIVE_INFINITY : x);
            }
          }
        }
        return notRaised(s, "differentiating the backward returned second derivatives (max |d²| " + max + ")"
            + (max == 0 ? ": zeros, silently" : "") + " instead of raising");
      }
    } catch (OpCall.KernelError e) {
      return Verdict.passed(Fact.of("raised", e.getMessage()),
          Fact.of("note", "differentiating the backward raises, as \"double_backward\": false says"));
    }
    return notRaised(s, "the backward's gradients require no grad (the backward is detached), so differentiating"
        + " it gives zeros instead of raising");
  }

  private static Verdict notRaised(Subject s, String butWas) {
    return Verdict.failed(Finding.of("differentiating the backward raises: the entry declares no second derivative"
            + " (\"double_backward\": false)",
        butWas,
        "if the op has a second derivative, drop \"double_backward\": false and gradcheck.gradgrad checks it; if it"
            + " has none, its backward must raise when differentiated (route it through an aten op with no double"
            + " backward), not give zeros that train silently wrong",
        new Cause.Contract("\"double_backward\": false", "differentiating the backward")),
        Fact.of("example", s.example().ref()));
  }
}
