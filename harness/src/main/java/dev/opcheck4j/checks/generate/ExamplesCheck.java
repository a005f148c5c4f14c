package dev.opcheck4j.checks.generate;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.OpCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.checks.registration.AnyKernelCheck;
import dev.opcheck4j.checks.schema.TypesCheck;

/**
 * The op has a runnable example, from the spec or synthesized from its schema, so its value checks
 * ran. Without one every value check would say Skipped and a run could pass an op that was never
 * called: that is a failure here, unless the spec skips this check with a reason.
 */
public final class ExamplesCheck extends CheckBase implements OpCheck {
  public static final String ID = "generate.examples";

  public ExamplesCheck() {
    super(Declaration.error(ID, "the op has a runnable example (the spec's, or synthesized from its schema), so its value checks ran")
        .requires(AnyKernelCheck.ID, TypesCheck.ID));
  }

  /** No silent pass: an op without examples gets one synthesized from its schema, unless the spec skips this check. */
  @Override
  public boolean wantsSynthesizedExample(OpSpec spec) {
    return spec.examples().isEmpty() && spec.skipReason(ID).isEmpty();
  }

  @Override
  public Verdict evaluateOp(Subject s) {
    int n = s.spec().examples().size();
    if (n > 0) {
      return Verdict.passed(Fact.of("examples", s.spec().synthesis().isEmpty() ? n + " from the spec" : s.spec().synthesis()));
    }
    return Verdict.failed(Finding.of(
        "a runnable example for " + s.op().name() + " (value checks never ran)",
        s.spec().synthesis().isEmpty() ? "no examples, and none were synthesized" : s.spec().synthesis(),
        "give an example in a spec (./opcheck init --library " + s.library().path().getFileName()
            + " writes a skeleton to edit), or skip " + ID + " with a \"why\"",
        new Cause.Contract("no runnable example", s.op().name())));
  }
}
