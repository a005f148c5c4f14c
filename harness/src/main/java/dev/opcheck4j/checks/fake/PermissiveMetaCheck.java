package dev.opcheck4j.checks.fake;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.RejectionCheck;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.torch.Device;

/**
 * On a generated input the real kernel raises on (outside the op's domain), the meta kernel raises
 * too. opcheck does not ask fake kernels to repeat input validation, so this is a note: under
 * torch.compile the error then appears only when the compiled code runs, not while tracing
 * (docs/checks/fake.permissive.md has how often it fires on correct ops).
 */
public final class PermissiveMetaCheck extends ValueCheck implements RejectionCheck {
  public static final String ID = "fake.permissive";

  public PermissiveMetaCheck() {
    super(Declaration.note(ID, "the meta kernel raises on the generated inputs the real kernel raises on")
        .requires(FakeMissingCheck.ID, KernelErrorCheck.ID)
        .onGeneratedInputs());
  }

  @Override
  public Verdict onRejected(Subject s, String realError) throws Exception {
    var untraceable = FakeMetadataCheck.crossRefSkips(OpTags.of(s));
    if (untraceable.isPresent()) {
      return Verdict.skipped(untraceable.get());
    }
    BoundExample meta;
    try {
      meta = OpCall.bind(s, Device.META);
    } catch (ExampleException e) {
      return Verdict.skipped("the input cannot be made on meta: " + e.getMessage());
    }
    try {
      OpCall.call(s, meta);
    } catch (OpCall.KernelError e) {
      return Verdict.passed(Fact.of("meta kernel raised", e.getMessage()));
    }
    String device = s.device().label();
    return Verdict.failed(Finding.of(
        "the meta kernel raises where the " + device + " kernel raises",
        "the meta kernel accepts an input the " + device + " kernel raised on: " + realError,
        "fake kernels need not validate inputs (opcheck does not ask it), so this is a note; to report the"
            + " error while tracing too, check the same condition in the Meta kernel",
        new Cause.Rejection(realError)));
  }
}
