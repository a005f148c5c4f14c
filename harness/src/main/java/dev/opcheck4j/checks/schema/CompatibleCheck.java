package dev.opcheck4j.checks.schema;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.PerOpCheck;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.Operator;
import dev.opcheck4j.torch.SchemaBaseline;
import dev.opcheck4j.torch.SchemaCompatibility;
import dev.opcheck4j.torch.UnknownOpException;
import java.util.ArrayList;
import java.util.List;

/**
 * Against a baseline recorded from an earlier release ({@code --baseline}): every op still exists,
 * its schema is backward compatible by libtorch's rules, and no kernel it had is gone. One failed
 * result per break; ops the baseline does not know are reported, passed, as added.
 */
public final class CompatibleCheck extends CheckBase implements PerOpCheck {
  public static final String ID = "schema.compatible";

  public CompatibleCheck() {
    super(ID, Scope.LIBRARY, "every op of the baseline still exists, with a backward-compatible schema and its kernels");
  }

  @Override
  public List<OpVerdict> evaluateEach(Subject s) {
    SchemaBaseline baseline = s.baseline();
    List<OpVerdict> out = new ArrayList<>();
    if (baseline == null) {
      return out;
    }
    Fact from = Fact.of("baseline", baseline.library() + " (libtorch " + baseline.libtorch() + ")");
    for (SchemaBaseline.Entry old : baseline.ops()) {
      Operator now;
      try {
        now = s.library().op(old.op());
      } catch (UnknownOpException e) {
        out.add(new OpVerdict(old.op(), Verdict.failed(
            old.op() + " registered, as in the baseline",
            "removed: " + s.library().path().getFileName() + " does not register it",
            "callers and saved models that use it break: keep the op (deprecate it first), or make a new major release",
            Fact.of("was", old.schema()), from)));
        continue;
      }
      List<SchemaCompatibility.Break> breaks = SchemaCompatibility.compare(old, now);
      for (SchemaCompatibility.Break b : breaks) {
        out.add(new OpVerdict(old.op(), Verdict.failed(
            "a backward-compatible change of " + old.op(),
            b.what(),
            "arguments may gain defaults, and new arguments may come last with a default; nothing may be removed,"
                + " renamed, retyped or re-annotated, and no kernel may go",
            Fact.of("was", b.was()), Fact.of("now", b.now()), from)));
      }
      if (breaks.isEmpty()) {
        String change = old.schema().equals(now.schema().toString()) ? "unchanged" : "compatible change";
        out.add(new OpVerdict(old.op(), Verdict.passed(Fact.of("schema", now.schema().toString()),
            Fact.of("change", change), from)));
      }
    }
    for (String op : s.library().ops()) {
      if (baseline.entry(op).isEmpty()) {
        out.add(new OpVerdict(op, Verdict.passed(Fact.of("change", "added (not in the baseline)"), from)));
      }
    }
    return out;
  }
}
