package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;

/**
 * A check that looks at the generated inputs the real kernel rejected (raised on), which the value
 * checks never see.
 */
public non-sealed interface RejectionCheck extends Check {
  @Override
  default CheckInfo.Scope scope() {
    return CheckInfo.Scope.GENERATED;
  }

  /**
   * Judges one rejected input.
   *
   * @param subject the op, device and the rejected input as its example
   * @param realError the first line of what the real kernel raised
   */
  Verdict onRejected(Subject subject, String realError) throws Exception;
}
