package dev.opcheck4j.checks.registration;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.OpCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.UnknownOpException;
import java.util.Optional;

/** The operator is defined in the dispatcher, with a schema. */
public final class ExistsCheck extends CheckBase implements OpCheck {
  public static final String ID = "registration.exists";

  public ExistsCheck() {
    super(Declaration.error(ID, "the operator is defined in the dispatcher, with a schema"));
  }

  @Override
  public Verdict evaluateOp(Subject s) {
    // an unknown name never gets here (see onUnknownOp): the op was found, so state what was found
    return Verdict.passed(
        Fact.of("schema", s.op().schema()),
        Fact.of("kernels", String.join(", ", s.op().table().keys())));
  }

  @Override
  public Optional<Verdict> onUnknownOp(UnknownOpException unknown, String library) {
    return Optional.of(Verdict.failed(Finding.of(
        unknown.name() + " registered by " + java.nio.file.Path.of(library).getFileName(),
        "not registered",
        unknown.suggestions().isEmpty()
            ? "check the name in the spec against './opcheck list --library " + library + "'"
            : "did you mean " + String.join(", ", unknown.suggestions()) + "?",
        new Cause.Contract("not registered", unknown.name()))));
  }
}
