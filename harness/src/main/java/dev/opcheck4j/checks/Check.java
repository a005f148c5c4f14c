package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.Severity;
import java.util.List;

/**
 * One conformance check. Everything it says about itself (id, summary, severity, prerequisites,
 * whether it runs on generated inputs) is its {@link #info()}, declared once; each has a doc page
 * {@code docs/checks/<id>.md}. What it looks at, and so its scope, is its type: one interface per
 * scope, each with only its own method. A check's finding is a FAILED verdict; the run's severity
 * policy turns it into the outcome the check's severity gives (a warning check's finding is a WARNING).
 */
public sealed interface Check
    permits LibraryCheck, BaselineCheck, OpCheck, DeviceCheck, ExampleCheck, GenerationCheck, RejectionCheck,
        SupervisorCheck, ResultsCheck, PackageCheck {
  /** The check's metadata, declared in one place. */
  CheckInfo info();

  /** How often it runs, as its type says. */
  CheckInfo.Scope scope();

  default String id() {
    return info().id();
  }

  default String summary() {
    return info().summary();
  }

  default Severity severity() {
    return info().severity();
  }

  /**
   * Checks (by id) that must have passed for the same op (and device) before this one can say
   * anything; when one did not, this check is Skipped with that reason.
   */
  default List<String> requires() {
    return info().requires();
  }

  /**
   * Whether the check means anything on {@code device}. Checks that compare values do not apply to
   * meta (it has none); the fake-kernel checks compare a real device against meta. A check that
   * does not apply gives no result for that device (it is not a skip: there is nothing to run).
   */
  default boolean appliesTo(dev.opcheck4j.torch.Device device) {
    return true;
  }

  /**
   * Why the check has nothing to say about an op whose spec entry is {@code spec}, when it needs
   * something the entry does not declare (a reference, say); empty when it can run. The runner then
   * says Skipped with this reason, without starting a unit.
   */
  default java.util.Optional<String> missingFrom(dev.opcheck4j.spec.OpSpec spec) {
    return java.util.Optional.empty();
  }

  /**
   * Why the check has nothing to say about an op with {@code schema} and {@code tags} (registered and
   * declared; an op with no out= argument, say), as a skip reason beginning
   * {@link dev.opcheck4j.api.Coverage#NOT_APPLICABLE}, or why it must not run on it (a fake check on an op
   * tagged {@code dynamic_output_shape}); empty when it applies. Read in the parent, like
   * {@link #missingFrom}: no unit starts.
   */
  default java.util.Optional<String> notFor(dev.opcheck4j.torch.OpSchema schema, OpTags tags) {
    return java.util.Optional.empty();
  }

  /**
   * Whether the check means anything for an op with {@code tags} (a check of what a tag promises, on an
   * op without the tag, does not). A check that does not gives the op no result at all, as on a device it
   * does not apply to.
   */
  default boolean appliesTo(OpTags tags) {
    return true;
  }

  /**
   * Whether the check means anything in a run with {@code baseline} ({@code check --baseline}; null
   * when the run has none). A check that does not gives no result at all, as on a device it does
   * not apply to.
   */
  default boolean appliesWith(dev.opcheck4j.torch.SchemaBaseline baseline) {
    return true;
  }

  /** The family: the part of the id before the first dot (the whole id when it has none). */
  default String family() {
    return info().family();
  }
}
