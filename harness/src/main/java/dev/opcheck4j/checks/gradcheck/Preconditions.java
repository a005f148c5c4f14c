package dev.opcheck4j.checks.gradcheck;

import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.checks.Subject;

/** Why a gradient check cannot say anything about an example, or null when it can. */
public final class Preconditions {
  private Preconditions() {}

  /**
   * An op with no autograd on the device is named as the reason before the example is: marking its
   * inputs would not help (the output would not require grad), and coverage shows this reason.
   */
  public static String skipReason(Subject s, GradFunction f) {
    if (f.hasInputs()) {
      return null;
    }
    if (!s.op().table().hasAutograd(s.device())) {
      return s.spec().differentiable()
          ? "the op has no Autograd or CompositeImplicitAutograd kernel for " + s.device().label()
              + ": gradients stop at it (see autograd.differentiable)"
          // by design, as a spec's "skip" is: coverage does not list it as a family that never ran
          : Coverage.SPEC_SKIP + "the op is declared non-differentiable (\"differentiable\": false)";
    }
    return "no floating-point input requires grad in this example (set \"requires_grad\": true)";
  }
}
