package dev.opcheck4j.checks.gradcheck;

import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.ExampleException;
import java.util.List;

/**
 * Where a gradient check starts: the op's function called once in float64 with its differentiable
 * inputs requiring grad, or why no gradient check can run on the example.
 *
 * @param f the op's function
 * @param at the binding it was called at (null when skipped)
 * @param outputs its floating-point outputs there (empty when skipped)
 * @param skip why gradient checks cannot run here, or null when they can
 */
record GradStart(GradFunction f, BoundExample at, List<OpCall.Output> outputs, String skip) {
  /** Why a check of the backward skips an example whose outputs require no grad. */
  static final String NO_BACKWARD = "no output requires grad: there is no backward to check (gradcheck.jacobian"
      + " holds the example's requested gradient to gradcheck's rule for functions with no differentiable output)";

  static GradStart of(Subject s) throws ExampleException {
    GradFunction f = GradFunction.of(s, s.device());
    String skip = Preconditions.skipReason(s, f);
    if (skip != null) {
      return new GradStart(f, null, List.of(), skip);
    }
    try {
      BoundExample at = f.fresh(true);
      return new GradStart(f, at, f.forward(at), null);
    } catch (OpCall.KernelError e) {
      return new GradStart(f, null, List.of(), rejected(e));
    }
  }

  /** The reason when the op rejects the float64 copies gradient checks work on. */
  static String rejected(OpCall.KernelError e) {
    return "the op rejects float64 copies of the example (" + e.getMessage() + "); gradient checks need float64";
  }

  /** The outputs that require grad. */
  List<OpCall.Output> differentiable() {
    return outputs.stream().filter(o -> o.tensor().requires_grad()).toList();
  }
}
