package dev.opcheck4j.checks.schema;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckInfo.Scope;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.List;

/**
 * No output is an alias of a mutated input ({@code Tensor(a!) x -> Tensor(a!)}): torch.compile
 * cannot functionalize a custom op that returns what it mutates.
 */
public final class FunctionalizableCheck extends CheckBase {
  public static final String ID = "schema.functionalizable";

  public FunctionalizableCheck() {
    super(CheckInfo.error(ID, Scope.OP, "no output aliases a mutated input (torch.compile can functionalize the op)"));
  }

  @Override
  public Verdict evaluate(Subject s) {
    OpSchema schema = s.op().schema();
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < schema.returns().size(); i++) {
      OpSchema.Return r = schema.returns().get(i);
      if (r.alias().isEmpty()) {
        continue;
      }
      OpSchema.Alias ra = r.alias().get();
      for (OpSchema.Argument a : schema.mutableArguments()) {
        boolean shared = a.alias().get().before().stream().anyMatch(ra.before()::contains);
        if (shared || ra.write()) {
          problems.add("return " + i + " is " + r.type().text() + ra + ", an alias of the mutated argument '" + a.name() + "'");
          break;
        }
      }
    }
    if (problems.isEmpty()) {
      return Verdict.passed();
    }
    return Verdict.failed(
        "no output aliases a mutated input in " + schema,
        String.join("; ", problems),
        "return nothing ('-> ()') and let the caller read the mutated argument, or return a new"
            + " tensor without an alias annotation");
  }
}
