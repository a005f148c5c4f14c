package dev.opcheck4j.checks.trace;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.fake.FakeMissingCheck;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.torch.SymbolicTrace;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The op's meta-serving kernel traces with symbolic sizes, as torch.compile(dynamic=True) and opcheck's
 * test_aot_dispatch_dynamic trace it: each dim of size 2 or more symbolic in turn, then all together. A
 * call that raises on symbolic sizes (numel(), storage_offset()) fails, and so does an output whose sizes,
 * with the hints substituted, are not the real kernel's.
 */
public final class SymbolicSizesCheck extends TracedCheck {
  public static final String ID = "trace.symbolic-sizes";

  public SymbolicSizesCheck() {
    super(Declaration.error(ID, "the meta-serving kernel runs on symbolic sizes (no numel()/storage_offset()) and gives the real sizes")
        .requires(FakeMissingCheck.ID, KernelErrorCheck.ID)
        .onAFewGeneratedInputs());
  }

  @Override
  Verdict judge(Subject s, BoundExample meta) throws Exception {
    Fact example = OpCall.exampleFact(s, meta);
    List<String> stopped = new ArrayList<>();
    TracedCall last = null;
    List<TracedCall.Variant> variants = TracedCall.variants(s, meta);
    for (TracedCall.Variant v : variants) {
      TracedCall t = TracedCall.run(s, meta, v);
      Optional<SymbolicTrace.Event> call = t.first("symbolic-call");
      if (call.isPresent()) {
        return Verdict.failed(new Finding(
            "the kernel reads sizes the symbolic way (sym_numel(), sym_size(d), sizes()) with " + v.description(),
            call.get().text() + " on " + call.get().where() + " raised \"Cannot call " + call.get().text()
                + " on tensor with symbolic sizes/strides\"",
            "under torch.compile(dynamic=True) the sizes are symbolic and " + call.get().text() + " raises; compute the"
                + " element count from size(d) one dim at a time (stable ABI) or use sym_numel()/sym_storage_offset()"
                + " (classic code), or let an aten op size the output (empty_like, new_empty with sizes())",
            new Cause.Contract("symbolic sizes", call.get().where()),
            List.of(Fact.of("call", call.get().text()), Fact.of("symbolic", v.description()), TracedCall.kernelFact(s)),
            List.of()), example);
      }
      if (t.error().isPresent()) {
        stopped.add(v.description() + ": " + t.stoppedAt());
      }
      last = t;
    }
    if (last == null || last.error().isPresent()) {
      return Verdict.skipped("the traced call stopped before it returned, " + String.join("; ", stopped.subList(stopped.size() - 1, stopped.size())));
    }
    List<Fact> facts = new ArrayList<>();
    facts.add(TracedCall.kernelFact(s));
    facts.add(Fact.of("traced", variants.size() + " calls (" + String.join(", ", variants.stream().map(TracedCall.Variant::description).toList()) + ")"));
    for (TracedCall.Output o : last.outputs()) {
      facts.add(Fact.of(o.label(), "[" + String.join(", ", o.sizes().expressions()) + "]"));
    }
    OpTags tags = OpTags.of(s);
    // an op whose output depends on data or that changes its input's metadata in place is not compared, as
    // CrossRefFakeMode compares none (fake.metadata's rule)
    if (dev.opcheck4j.checks.fake.FakeMetadataCheck.crossRefSkips(tags).isPresent() || last.outputs().isEmpty()) {
      return Verdict.passed(facts);
    }
    OpCall.Outputs real;
    try {
      real = OpCall.call(s, OpCall.bind(s, s.device()));
    } catch (OpCall.KernelError e) {
      // the trace ran on symbolic sizes; only its comparison with the real sizes could not
      facts.add(Fact.of(Fact.NOT_CHECKED, "the traced sizes against the real kernel's (it raised on this input)"));
      return Verdict.passed(facts);
    }
    for (int i = 0; i < real.tensors().size() && i < last.outputs().size(); i++) {
      long[] r = real.tensors().get(i).tensor().sizes().vec().get();
      TracedCall.Output o = last.outputs().get(i);
      List<Long> hinted = o.sizes().hints().stream().map(h -> h.orElse(-1L)).toList();
      boolean same = hinted.size() == r.length;
      for (int d = 0; same && d < r.length; d++) {
        same = hinted.get(d) < 0 || hinted.get(d) == r[d];
      }
      if (!same && metaAgrees(s, meta, i, hinted)) {
        // the Meta kernel gives these sizes on concrete meta tensors too: fake.metadata's finding, and opcheck's
        // test_aot_dispatch_dynamic, which compares no sizes, passes such an op
        facts.add(Fact.of("note", o.label() + " traced as " + hinted + ", real " + java.util.Arrays.toString(r)
            + ": the Meta kernel gives the same on concrete meta tensors (fake.metadata judges that)"));
        continue;
      }
      if (!same) {
        return Verdict.failed(Finding.of(
            o.label() + " of the traced call, its hints substituted, has the real " + s.device().label() + " sizes " + java.util.Arrays.toString(r),
            o.label() + " traced as [" + String.join(", ", o.sizes().expressions()) + "] = " + hinted,
            "size the output from the inputs' sizes as the real kernel does; torch.compile allocates what the traced kernel says",
            new Cause.MetadataMismatch(o.label(), "sizes")), example);
      }
    }
    return Verdict.passed(facts);
  }

  /** Whether the op on concrete meta copies of the example gives output {@code i} the sizes {@code hinted}. */
  private static boolean metaAgrees(Subject s, BoundExample meta, int i, List<Long> hinted) {
    try {
      OpCall.Outputs concrete = OpCall.call(s, meta);
      if (i >= concrete.tensors().size()) {
        return false;
      }
      long[] m = concrete.tensors().get(i).tensor().sizes().vec().get();
      return java.util.Arrays.equals(m, hinted.stream().mapToLong(Long::longValue).toArray());
    } catch (OpCall.KernelError e) {
      return false;
    }
  }
}
