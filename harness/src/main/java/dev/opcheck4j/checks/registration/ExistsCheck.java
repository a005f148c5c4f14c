package dev.opcheck4j.checks.registration;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckInfo.Scope;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;

/** The operator is defined in the dispatcher, with a schema. */
public final class ExistsCheck extends CheckBase {
  public static final String ID = "registration.exists";

  public ExistsCheck() {
    super(CheckInfo.error(ID, Scope.OP, "the operator is defined in the dispatcher, with a schema"));
  }

  @Override
  public Verdict evaluate(Subject s) {
    // The runner reports unknown names as failures of this check before resolving the op; here the
    // op was found, so state what was found.
    return Verdict.passed(
        Fact.of("schema", s.op().schema()),
        Fact.of("kernels", String.join(", ", s.op().table().keys())));
  }
}
