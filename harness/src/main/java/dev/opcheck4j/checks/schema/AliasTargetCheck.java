package dev.opcheck4j.checks.schema;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.OpCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.List;

/** Each aliasing return ({@code -> Tensor(a)}) names an alias set some input is in. */
public final class AliasTargetCheck extends CheckBase implements OpCheck {
  public static final String ID = "schema.alias-target";

  public AliasTargetCheck() {
    super(Declaration.error(ID, "a Tensor(a) return points at an input with the same alias set"));
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
      for (String set : r.alias().get().before()) {
        if (set.equals("*")) {
          continue;
        }
        boolean found =
            schema.arguments().stream()
                .anyMatch(a -> a.alias().map(al -> al.before().contains(set)).orElse(false));
        if (!found) {
          problems.add("return " + i + " is Tensor(" + set + "), but no argument is in alias set " + set);
        }
      }
    }
    if (problems.isEmpty()) {
      return Verdict.passed();
    }
    return Verdict.failed(Finding.of(
        "every Tensor(a) return shares its alias set with an input in " + schema,
        String.join("; ", problems),
        "annotate the input the output is a view of with the same set (Tensor(a) x -> Tensor(a)), or"
            + " drop the annotation if the output is a new tensor",
        new Cause.Contract("alias set of no input", String.join("; ", problems))));
  }
}
