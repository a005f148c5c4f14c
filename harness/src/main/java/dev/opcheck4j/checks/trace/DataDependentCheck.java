package dev.opcheck4j.checks.trace;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.fake.FakeMissingCheck;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.torch.SymbolicTrace;
import java.util.List;
import java.util.Optional;

/**
 * The op's meta-serving kernel does not branch on a size that depends on data: the output of an op tagged
 * dynamic_output_shape (nonzero, masked_select, unique) has unbacked sizes under FakeTensor, and a guard on
 * one (size(0), an if on it) raises GuardOnDataDependentSymNode; so does a value read (item(), an op tagged
 * data_dependent_output) that decides anything.
 */
public final class DataDependentCheck extends TracedCheck {
  public static final String ID = "trace.data-dependent";

  public DataDependentCheck() {
    super(Declaration.error(ID, "the meta-serving kernel guards on no data-dependent size or value")
        .requires(FakeMissingCheck.ID, KernelErrorCheck.ID));
  }

  @Override
  Verdict judge(Subject s, BoundExample meta) throws Exception {
    TracedCall t = traceAll(s, meta);
    Optional<SymbolicTrace.Event> guard = t.first("data-dependent");
    if (guard.isPresent()) {
      return Verdict.failed(new Finding(
          "the kernel decides nothing on a size or value that depends on the input's data",
          "the kernel branches on a data-dependent size: " + guard.get().text() + " (at " + guard.get().where() + ")",
          "keep the data-dependent size symbolic (sym_size(d), at::empty_symint) and never compare it or turn it into"
              + " an int in a Meta or composite kernel; or register the op with a fake implementation that allocates it"
              + " with ctx.new_dynamic_size and tag it dynamic_output_shape",
          new Cause.Contract("data-dependent guard", guard.get().where()),
          List.of(Fact.of("guard", guard.get().text()), TracedCall.kernelFact(s)), List.of()), OpCall.exampleFact(s, meta));
    }
    if (t.error().isPresent()) {
      return Verdict.skipped("the traced call stopped before its data-dependent sizes could be seen: " + t.stoppedAt());
    }
    return Verdict.passed(TracedCall.kernelFact(s), Fact.of("data-dependent guards", "none"));
  }
}
