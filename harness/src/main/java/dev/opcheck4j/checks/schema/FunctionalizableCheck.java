package dev.opcheck4j.checks.schema;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.OpCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.List;

/**
 * No output carries an alias annotation. PyTorch's functionalization (torch.compile, and opcheck's
 * test_aot_dispatch_dynamic) supports no custom (non-ATen) operator whose output has one, mutable
 * ({@code Tensor(a!) x -> Tensor(a!)}) or not ({@code Tensor(a) x -> Tensor(a)}: "Found a custom
 * (non-ATen) operator whose output has alias annotations"). An op served only by a
 * CompositeImplicitAutograd kernel is decomposed into aten ops before functionalization, so its
 * annotation never reaches it.
 */
public final class FunctionalizableCheck extends CheckBase implements OpCheck {
  public static final String ID = "schema.functionalizable";

  public FunctionalizableCheck() {
    super(Declaration.error(ID, "no output has an alias annotation (torch.compile can functionalize the op)")
        .requires(AliasTargetCheck.ID));
  }

  @Override
  public Verdict evaluateOp(Subject s) {
    OpSchema schema = s.op().schema();
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < schema.returns().size(); i++) {
      OpSchema.Return r = schema.returns().get(i);
      if (r.alias().isEmpty()) {
        continue;
      }
      OpSchema.Alias ra = r.alias().get();
      String target = schema.arguments().stream()
          .filter(a -> a.alias().isPresent() && a.alias().get().before().stream().anyMatch(ra.before()::contains))
          .map(a -> (a.isWrite() ? "the mutated argument '" : "argument '") + a.name() + "'")
          .findFirst().orElse("an input");
      problems.add("return " + i + " is " + r.type().text() + ra + ", " + (ra.write() ? "a mutable alias" : "a view") + " of " + target);
    }
    if (problems.isEmpty()) {
      return Verdict.passed();
    }
    if (s.op().table().has("CompositeImplicitAutograd") && s.op().table().keys().stream()
        .noneMatch(k -> k.equals("CPU") || k.equals("CUDA") || k.equals("Meta") || k.equals("CompositeExplicitAutograd"))) {
      return Verdict.passed(Fact.of("note", String.join("; ", problems)
          + " (CompositeImplicitAutograd only: decomposed into aten ops before functionalization)"));
    }
    return Verdict.failed(Finding.of(
        "no output of " + schema + " has an alias annotation",
        String.join("; ", problems) + ": functionalization rejects it (\"Found a custom (non-ATen) operator whose"
            + " output has alias annotations ... We only support functionalizing operators whose outputs do not have"
            + " alias annotations\")",
        "return a new tensor without an alias annotation (a copy), or return nothing ('-> ()') from an op that"
            + " mutates; for a view, build it from aten view ops in a CompositeImplicitAutograd kernel",
        new Cause.Contract("alias annotation on an output", String.join("; ", problems))));
  }
}
