package dev.opcheck4j.checks.registration;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.OpCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;

/** The operator has at least one kernel: a definition with no implementation cannot run anywhere. */
public final class AnyKernelCheck extends CheckBase implements OpCheck {
  public static final String ID = "registration.any-kernel";

  public AnyKernelCheck() {
    super(Declaration.error(ID, "the operator has a kernel at some dispatch key"));
  }

  @Override
  public Verdict evaluateOp(Subject s) {
    if (!s.op().table().isEmpty()) {
      return Verdict.passed(Fact.of("kernels", String.join(", ", s.op().table().keys())));
    }
    String ns = s.op().namespace();
    String base = s.op().schema().baseName();
    return Verdict.failed(Finding.of(
        "a kernel at CPU, CUDA, Meta or a composite key for " + s.op().schema(),
        "no kernel registered: the op is defined but never implemented",
        "add STABLE_TORCH_LIBRARY_IMPL("
            + ns
            + ", CPU, m) { m.impl(\""
            + base
            + "\", TORCH_BOX(&kernel)); } (TORCH_LIBRARY_IMPL for the classic API)",
        new Cause.Contract("no kernel", s.op().name())));
  }
}
