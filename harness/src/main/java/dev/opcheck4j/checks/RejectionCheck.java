package dev.opcheck4j.checks;

/**
 * A check of scope {@code GENERATED} that looks at the generated inputs the real kernel rejected
 * (raised on), which the value checks never see.
 */
public interface RejectionCheck extends Check {
  /**
   * Judges one rejected input.
   *
   * @param subject the op, device and the rejected input as its example
   * @param realError the first line of what the real kernel raised
   */
  Verdict onRejected(Subject subject, String realError) throws Exception;

  /** Never called by the runner: the examples are inputs the real kernel accepts. */
  @Override
  default Verdict evaluate(Subject subject) {
    return Verdict.skipped("judged on generated inputs the real kernel rejects, not on examples");
  }
}
