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

/**
 * Every argument the kernel may write is declared {@code Tensor(a!)}, as far as the schema alone
 * tells: an {@code out}-style keyword tensor must be {@code (a!)}, and an op that returns nothing
 * can only do anything by writing an argument, so it must declare one. (Writes the schema does not
 * reveal are caught at run time by {@code mutation.undeclared}.)
 */
public final class MutableArgsCheck extends CheckBase implements OpCheck {
  public static final String ID = "schema.mutable-args";

  public MutableArgsCheck() {
    super(Declaration.error(ID, "arguments the kernel may write (out=, or any tensor of an op returning nothing) are (a!)"));
  }

  @Override
  public Verdict evaluateOp(Subject s) {
    OpSchema schema = s.op().schema();
    List<String> problems = new ArrayList<>();
    for (OpSchema.Argument a : schema.arguments()) {
      if (a.kwargOnly() && a.type().holdsTensor() && a.name().startsWith("out") && !a.isWrite()) {
        problems.add("keyword argument '" + a.name() + "' follows the out= convention but is not (a!)");
      }
    }
    List<String> tensors =
        schema.arguments().stream().filter(a -> a.type().holdsTensor()).map(a -> "'" + a.name() + "'").toList();
    if (schema.returns().isEmpty() && schema.mutableArguments().isEmpty() && !tensors.isEmpty()) {
      problems.add(
          "returns nothing and declares no (a!) argument, so its only effect is writing one of "
              + String.join(", ", tensors));
    }
    if (problems.isEmpty()) {
      return Verdict.passed();
    }
    return Verdict.failed(Finding.of(
        "every argument the kernel may write is declared Tensor(a!) in " + schema,
        String.join("; ", problems),
        "annotate the written argument as Tensor(a!) (e.g. '*, Tensor(a!) out'); undeclared writes"
            + " are reordered or dropped by torch.compile",
        new Cause.Contract("writable argument not (a!)", String.join("; ", problems))));
  }
}
