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
import dev.opcheck4j.spec.OpSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The analytical Jacobian (libtorch autograd) matches central finite differences, for every
 * floating input that requires grad and every floating output, in float64. Fast mode by default;
 * a fast failure is re-run in slow mode to name the exact element. Slow mode also computes the
 * analytical Jacobian twice and requires the two to be bitwise equal.
 */
public final class JacobianCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "gradcheck.jacobian";

  public JacobianCheck() {
    super(Declaration.error(ID, "autograd's Jacobian matches finite differences (fast or slow mode, float64)")
        .requires(KernelErrorCheck.ID)
        .onGeneratedInputs());
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    GradFunction f = GradFunction.of(s, s.device());
    String skip = Preconditions.skipReason(s, f);
    if (skip != null) {
      return Verdict.skipped(skip);
    }
    OpSpec.Gradcheck opts = s.spec().gradcheck();
    Jacobians.Comparison c;
    String mode;
    try {
      var outputs = f.forward(f.fresh(true));
      if (outputs.isEmpty()) {
        return Verdict.skipped("the op has no floating-point output");
      }
      if (outputs.stream().noneMatch(o -> o.tensor().requires_grad())) {
        // as torch.autograd.gradcheck, which refuses a function with no differentiable output
        return Verdict.skipped("no output requires grad: there is no backward to check (see autograd.registration)");
      }
      if (opts.fast()) {
        c = Jacobians.fast(f, opts, s.seed());
        mode = "fast";
        if (!c.ok()) {
          Jacobians.Comparison slow = Jacobians.slow(f, opts.slow());
          if (!slow.ok()) {
            c = slow;
            mode = "fast, then slow to locate the error";
          }
        }
      } else {
        c = Jacobians.slow(f, opts);
        mode = "slow";
      }
    } catch (OpCall.KernelError e) {
      return Verdict.skipped("the op rejects float64 copies of the example (" + e.getMessage()
          + "); gradcheck needs float64");
    }
    List<Fact> facts = new ArrayList<>();
    facts.add(Fact.of("mode", mode));
    facts.add(Fact.of("dtype", f.dtypeNote()));
    facts.add(Fact.of("max abs error", c.maxAbs()));
    facts.add(Fact.of("max rel error", c.maxRel()));
    facts.add(Fact.of("worst", c.worst()));
    facts.add(Fact.of("calls", f.forwardCalls + " forward, " + f.backwardCalls + " backward"));
    facts.add(Fact.of("settings", "eps " + opts.eps() + ", atol " + opts.atol() + ", rtol " + opts.rtol()));
    if (c.ok()) {
      return Verdict.passed(facts);
    }
    Finding found = c.reentrancy() != null
        ? Finding.of("the analytical Jacobian is the same in two identical backward runs",
            "backward is not deterministic: " + c.reentrancy(),
            "remove state from the backward (counters, unseeded randomness, unordered atomics)",
            new Cause.ValueMismatch("analytical Jacobian of two backward runs"))
        : Finding.of("analytical Jacobian matches central finite differences within atol "
                + opts.atol() + ", rtol " + opts.rtol(),
            c.worst(),
            "the backward formula is wrong: for a composite op, the gradient is the one of the aten ops it"
                + " calls (check detach()ed terms); at the Autograd key, check the derivative you wrote",
            new Cause.ValueMismatch("analytical Jacobian"));
    return Verdict.failed(found.with(facts.toArray(Fact[]::new)).withHeatmaps(c.heatmaps()),
        Fact.of("example", s.example().ref()));
  }
}
