package dev.opcheck4j.checks.schema;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.OpCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.OpSchema;

/** A name ending in {@code _} is the in-place convention: its first argument must be {@code Tensor(a!)}. */
public final class InplaceNameCheck extends CheckBase implements OpCheck {
  public static final String ID = "schema.inplace-name";

  public InplaceNameCheck() {
    super(Declaration.error(ID, "an op named like an in-place op (trailing _) declares its first argument (a!)"));
  }

  @Override
  public Verdict evaluateOp(Subject s) {
    OpSchema schema = s.op().schema();
    String base = schema.baseName();
    if (!base.endsWith("_") || base.endsWith("__")) {
      return Verdict.passed();
    }
    if (!schema.arguments().isEmpty() && schema.arguments().get(0).isWrite()) {
      return Verdict.passed();
    }
    String first =
        schema.arguments().isEmpty()
            ? "it has no arguments"
            : "first argument is " + schema.arguments().get(0);
    return Verdict.failed(Finding.of(
        "'" + base + "' mutates its first argument, declared Tensor(a!)",
        first,
        "declare 'Tensor(a!) " + (schema.arguments().isEmpty() ? "self" : schema.arguments().get(0).name())
            + "' if it writes in place, or drop the trailing underscore if it returns a new tensor",
        new Cause.Contract("in-place name without (a!)", base)));
  }
}
