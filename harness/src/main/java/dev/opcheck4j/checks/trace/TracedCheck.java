package dev.opcheck4j.checks.trace;

import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpSchema;
import java.util.Optional;

/**
 * What the four trace checks share: they trace on meta whatever the device, once per real device (as the
 * fake checks compare one), never on an op whose tags rule a trace out, and each judges one example bound
 * to meta tensors once the companion library can trace it.
 */
abstract sealed class TracedCheck extends CheckBase implements ExampleCheck
    permits DataAccessCheck, DataDependentCheck, SpecializationCheck, SymbolicSizesCheck {
  TracedCheck(Declaration declaration) {
    super(declaration);
  }

  @Override
  public final boolean appliesTo(Device device) {
    return device != Device.META;
  }

  @Override
  public final Optional<String> notFor(OpSchema schema, OpTags tags) {
    return TracedCall.notTraced(tags);
  }

  @Override
  public final Verdict evaluateExample(Subject s) throws Exception {
    Optional<String> cannot = TracedCall.cannotTrace(s);
    return cannot.isPresent() ? Verdict.skipped(cannot.get()) : judge(s, TracedCall.bindMeta(s));
  }

  /** The verdict on the example {@code meta}, bound to meta tensors, that the companion can trace. */
  abstract Verdict judge(Subject s, BoundExample meta) throws Exception;

  /** One traced call with every size of 2 or more symbolic at once. */
  static TracedCall traceAll(Subject s, BoundExample meta) throws Exception {
    return TracedCall.run(s, meta, TracedCall.Variant.all(meta.values().size()));
  }
}
