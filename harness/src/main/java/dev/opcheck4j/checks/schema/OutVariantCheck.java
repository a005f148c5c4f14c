package dev.opcheck4j.checks.schema;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCheck;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.OpSchema;
import java.util.List;

/**
 * An out= op (keyword-only {@code Tensor(a!)} arguments) returns nothing or exactly its out arguments,
 * each annotated like the argument it is, as PyTorch's out= convention has it (torchgen asserts it of
 * every native out= function; callers of {@code add(..., out=o)} rely on getting {@code o} back). The
 * dispatcher accepts any return, so this is stricter than PyTorch: a warning.
 */
public final class OutVariantCheck extends CheckBase implements OpCheck {
  public static final String ID = "schema.out-variant";

  public OutVariantCheck() {
    super(Declaration.warning(ID, "an out= op returns nothing or exactly its out arguments, annotated like them"));
  }

  @Override
  public Verdict evaluateOp(Subject s) {
    OpSchema schema = s.op().schema();
    List<OpSchema.Argument> outs =
        schema.arguments().stream().filter(a -> a.kwargOnly() && a.type().isTensor() && a.isWrite()).toList();
    if (outs.isEmpty() || schema.returns().isEmpty() || returnsOuts(schema.returns(), outs)) {
      return Verdict.passed();
    }
    String names = String.join(", ", outs.stream().map(a -> "'" + a.name() + "'").toList());
    return Verdict.failed(Finding.of(
        "an out= op returns nothing or its out arguments " + names + " themselves, in " + schema,
        "returns " + String.join(", ", schema.returns().stream().map(OpSchema.Return::toString).toList()),
        "return nothing ('-> ()') or each out argument itself, annotated like it (e.g. '-> Tensor(a!)')",
        new Cause.Contract("out= op returns other tensors than its out arguments", schema.qualifiedName())));
  }

  /** Whether the returns are the out arguments, in order, each with the argument's alias annotation. */
  private static boolean returnsOuts(List<OpSchema.Return> returns, List<OpSchema.Argument> outs) {
    if (returns.size() != outs.size()) {
      return false;
    }
    for (int i = 0; i < outs.size(); i++) {
      if (!returns.get(i).alias().equals(outs.get(i).alias())) {
        return false;
      }
    }
    return true;
  }
}
