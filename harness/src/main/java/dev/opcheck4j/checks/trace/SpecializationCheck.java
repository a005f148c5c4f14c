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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The op's meta-serving kernel adds no guard on a symbolic size. sizes(), size(d), strides() and
 * stride(d) on a FakeTensor return the hints and guard on them: the compiled graph is specialised to that
 * shape and recompiled for another. Not a defect in PyTorch (opcheck passes such an op), and the stable ABI
 * has no SymInt, so a stable-ABI Meta kernel that sizes its output arithmetically cannot avoid it: a note
 * (it fired on 120 of 200 correct ops of bench composites; docs/checks/trace.specialization.md).
 */
public final class SpecializationCheck extends TracedCheck {
  public static final String ID = "trace.specialization";

  public SpecializationCheck() {
    super(Declaration.note(ID, "the meta-serving kernel adds no guard on a symbolic size (else: recompiles per shape)")
        .requires(FakeMissingCheck.ID, KernelErrorCheck.ID));
  }

  @Override
  Verdict judge(Subject s, BoundExample meta) throws Exception {
    TracedCall t = traceAll(s, meta);
    if (t.error().isPresent()) {
      return Verdict.skipped("the traced call stopped before it returned: " + t.stoppedAt());
    }
    List<SymbolicTrace.Event> guards = t.all("guard");
    if (guards.isEmpty()) {
      return Verdict.passed(TracedCall.kernelFact(s), Fact.of("guards", "none"));
    }
    Set<String> described = new LinkedHashSet<>();
    for (SymbolicTrace.Event g : guards) {
      described.add(g.text() + " (" + g.where() + ")");
    }
    SymbolicTrace.Event first = guards.get(0);
    return Verdict.failed(new Finding(
        "the kernel keeps the symbolic sizes symbolic (sym_sizes(), sym_size(d), sym_strides())",
        "the kernel specialises on " + first.text() + " at " + first.where()
            + (described.size() > 1 ? ", and " + (described.size() - 1) + " more guards" : ""),
        "torch.compile(dynamic=True) recompiles this op for every other shape; read sym_sizes()/sym_size(d) in"
            + " classic code, or let an aten op size the output (empty_like) in stable-ABI code",
        new Cause.Contract("specialisation", first.text()),
        List.of(Fact.of("guards", String.join("; ", described)), TracedCall.kernelFact(s)), List.of()),
        OpCall.exampleFact(s, meta));
  }
}
