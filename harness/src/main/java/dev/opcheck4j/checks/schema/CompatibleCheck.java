package dev.opcheck4j.checks.schema;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.BaselineCheck;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.LibraryView;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.DispatchTable;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.SchemaBaseline;
import dev.opcheck4j.torch.SchemaCompatibility;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Against a baseline recorded from an earlier release ({@code --baseline}): every op still exists,
 * its schema is backward compatible by libtorch's rules, and no kernel it had is gone. One failed
 * result per break; ops the baseline does not know are reported, passed, as added.
 */
public final class CompatibleCheck extends CheckBase implements BaselineCheck {
  public static final String ID = "schema.compatible";

  public CompatibleCheck() {
    super(Declaration.error(ID,
        "every op of the baseline still exists, with a backward-compatible schema and its kernels"));
  }

  @Override
  public List<OpVerdict> evaluateEach(LibraryView library, SchemaBaseline baseline) {
    return baseline == null ? List.of() : compare(baseline, library.fileName(), library.schemas(), library.tables());
  }

  /**
   * The library's ops, with their schemas and dispatch tables (as a worker reports them), against the
   * baseline, by libtorch's rules in plain Java ({@link SchemaCompatibility#backwardCompatible}).
   */
  public static List<OpVerdict> compare(
      SchemaBaseline baseline, String library, Map<String, OpSchema> schemas, Map<String, DispatchTable> tables) {
    return compare(baseline, library, List.copyOf(schemas.keySet()), old -> schemas.containsKey(old.op())
        ? Optional.of(new Comparison(schemas.get(old.op()).toString(),
            SchemaCompatibility.compare(old, schemas.get(old.op()), tables.get(old.op()))))
        : Optional.empty());
  }

  /** An op of the baseline as registered now: its schema and what breaks. */
  record Comparison(String schema, List<SchemaCompatibility.Break> breaks) {}

  /**
   * One verdict per break, per unbroken op and per added op.
   *
   * @param compared a baseline op as registered now, or empty when the library does not register it
   */
  static List<OpVerdict> compare(SchemaBaseline baseline, String library, List<String> ops,
      Function<SchemaBaseline.Entry, Optional<Comparison>> compared) {
    List<OpVerdict> out = new ArrayList<>();
    Fact from = Fact.of("baseline", baseline.library() + " (libtorch " + baseline.libtorch() + ")");
    for (SchemaBaseline.Entry old : baseline.ops()) {
      Optional<Comparison> found = compared.apply(old);
      if (found.isEmpty()) {
        out.add(new OpVerdict(old.op(), Verdict.failed(Finding.of(
            old.op() + " registered, as in the baseline",
            "removed: " + library + " does not register it",
            "callers and saved models that use it break: keep the op (deprecate it first), or make a new major release",
            new Cause.Contract("op removed", old.op())).with(Fact.of("was", old.schema()), from))));
        continue;
      }
      for (SchemaCompatibility.Break b : found.get().breaks()) {
        out.add(new OpVerdict(old.op(), Verdict.failed(Finding.of(
            "a backward-compatible change of " + old.op(),
            b.what(),
            "arguments may gain defaults, and new arguments may come last with a default; nothing may be removed,"
                + " renamed, retyped or re-annotated, and no kernel may go",
            new Cause.Contract("incompatible change", b.what())).with(Fact.of("was", b.was()), Fact.of("now", b.now()), from))));
      }
      if (found.get().breaks().isEmpty()) {
        String change = old.schema().equals(found.get().schema()) ? "unchanged" : "compatible change";
        out.add(new OpVerdict(old.op(), Verdict.passed(Fact.of("schema", found.get().schema()),
            Fact.of("change", change), from)));
      }
    }
    for (String op : ops) {
      if (baseline.entry(op).isEmpty()) {
        out.add(new OpVerdict(op, Verdict.passed(Fact.of("change", "added (not in the baseline)"), from)));
      }
    }
    return out;
  }
}
