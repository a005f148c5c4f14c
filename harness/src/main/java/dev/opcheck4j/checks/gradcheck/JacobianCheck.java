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
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.spec.OpSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The analytical Jacobian (libtorch autograd) matches central finite differences, for every
 * floating input that requires grad and every floating output, in float64. Fast mode by default;
 * a fast failure is re-run in slow mode to name the exact element. Slow mode also computes the
 * analytical Jacobian twice and requires the two to be bitwise equal.
 *
 * <p>An input that requires grad is a claim: the example asks for its gradient. When no output then
 * requires grad, there is no analytical gradient, and the numerical one must be zero, as
 * torch.autograd.gradcheck requires of a function with no differentiable output; a gradient that
 * stops where the output still changes fails here, not as a warning.
 */
public final class JacobianCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "gradcheck.jacobian";

  public JacobianCheck() {
    super(Declaration.error(ID, "autograd's Jacobian matches finite differences (fast or slow mode, float64)")
        .requires(KernelErrorCheck.ID)
        .onAFewGeneratedInputs());
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    GradStart start = GradStart.of(s);
    if (start.skip() != null) {
      return Verdict.skipped(start.skip());
    }
    if (start.outputs().isEmpty()) {
      return Verdict.skipped("the op has no floating-point output");
    }
    GradFunction f = start.f();
    OpSpec.Gradcheck opts = s.spec().gradcheck();
    Jacobians.Judged judged;
    boolean differentiableOutputs = !start.differentiable().isEmpty();
    try {
      // with no output that requires grad, the example still asks for gradients: as
      // torch.autograd.gradcheck (_check_no_differentiable_outputs), the numerical gradient must be zero
      judged = Jacobians.judge(differentiableOutputs
          ? o -> o.fast() ? Jacobians.fast(f, o, s.seed()) : Jacobians.slow(f, o)
          : o -> Jacobians.withoutDifferentiableOutputs(f, o, s.seed()), opts);
    } catch (OpCall.KernelError e) {
      return Verdict.skipped(GradStart.rejected(e));
    }
    Jacobians.Comparison c = judged.c();
    List<Fact> facts = judged.facts(f, opts);
    if (c.ok()) {
      if (!differentiableOutputs) {
        facts.add(0, Fact.of("note", "no output requires grad, and none changes with "
            + String.join(", ", quoted(f.names)) + ": the numerical gradient is zero too, as gradcheck requires"));
      }
      return Verdict.passed(facts);
    }
    Finding found;
    if (c.reentrancy() != null) {
      found = Jacobians.nondeterministic(c, "analytical Jacobian", "backward");
    } else if (!differentiableOutputs) {
      found = missingGradient(s, f, c);
    } else if (c.zeroGradient() != null) {
      found = Finding.of("analytical Jacobian matches central finite differences within atol "
              + opts.atol() + ", rtol " + opts.rtol(),
          "the analytical gradient of " + c.zeroGradient() + " is zero where the numerical one is not ("
              + c.worst() + "): the gradient is silently zero",
          "autograd sees no dependence of the output on this input: a detach(), a raw data_ptr() read or a"
              + " backward term multiplied by zero cuts it; build the gradient from differentiable aten calls"
              + " on the input itself",
          new Cause.ValueMismatch("analytical Jacobian"));
    } else {
      found = Finding.of("analytical Jacobian matches central finite differences within atol "
              + opts.atol() + ", rtol " + opts.rtol(),
          c.worst(),
          "the backward formula is wrong: for a composite op, the gradient is the one of the aten ops it"
              + " calls (check detach()ed terms); at the Autograd key, check the derivative you wrote",
          new Cause.ValueMismatch("analytical Jacobian"));
    }
    return Verdict.failed(found.with(facts.toArray(Fact[]::new)).withHeatmaps(c.heatmaps()),
        Fact.of("example", s.example().ref()));
  }

  /**
   * No output requires grad although the example's inputs do, and an output changes with them. With
   * the spec's {@code "differentiable": false} the claim is that the gradient is zero; otherwise that
   * it flows.
   */
  private static Finding missingGradient(Subject s, GradFunction f, Jacobians.Comparison c) {
    String asked = String.join(", ", quoted(f.names));
    String butWas = c.zeroGradient().replaceFirst(" with respect to ", " does not require grad, yet changes with ")
        + ": the analytical gradient is missing where the numerical one is not zero (" + c.worst() + ")";
    Cause cause = new Cause.ValueMismatch("gradient of a function with no differentiable output");
    if (!s.spec().differentiable()) {
      return Finding.of("a zero numerical gradient: the spec declares the op non-differentiable (\"differentiable\":"
              + " false) and the example's " + asked + " require" + (f.names.size() == 1 ? "s" : "") + " grad",
          butWas,
          "the op is differentiable here after all: give it a backward and drop \"differentiable\": false, or drop"
              + " \"requires_grad\" from the example",
          cause);
    }
    return Finding.of("gradients flow back to " + asked + ", as the example asks (\"requires_grad\": true)",
        butWas,
        "register an Autograd kernel or implement the op as CompositeImplicitAutograd from differentiable aten"
            + " calls (a detach() or a raw data_ptr() read cuts the graph); if the op is not differentiable, drop"
            + " \"requires_grad\" from the example and declare \"differentiable\": false",
        cause);
  }

  private static List<String> quoted(List<String> names) {
    return names.stream().map(n -> "'" + n + "'").toList();
  }
}
