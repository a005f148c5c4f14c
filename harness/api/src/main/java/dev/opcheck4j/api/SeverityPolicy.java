package dev.opcheck4j.api;

/**
 * What a finding becomes: the one place that decides between {@link Outcome#FAILED} and {@link
 * Outcome#WARNING}. An error check's finding fails; a warning check's finding is a warning unless
 * warnings are made errors (by the run's option or by a spec file for its own ops).
 *
 * @param warningsAsErrors whether findings of warning checks fail
 */
public record SeverityPolicy(boolean warningsAsErrors) {
  /** Warnings stay warnings. */
  public static final SeverityPolicy DEFAULT = new SeverityPolicy(false);

  /** Warnings fail. */
  public static final SeverityPolicy WARNINGS_AS_ERRORS = new SeverityPolicy(true);

  /** The outcome a finding of {@code check} has. */
  public Outcome findingOutcome(CheckInfo check) {
    return check.severity() == Severity.ERROR || warningsAsErrors ? Outcome.FAILED : Outcome.WARNING;
  }

  /** This policy, made stricter by {@code other} (a spec file that makes its warnings errors). */
  public SeverityPolicy and(SeverityPolicy other) {
    return warningsAsErrors || other.warningsAsErrors ? WARNINGS_AS_ERRORS : DEFAULT;
  }
}
