package dev.opcheck4j.api;

/**
 * What a finding becomes: the one place that decides between {@link Outcome#FAILED}, {@link
 * Outcome#WARNING} and {@link Outcome#NOTE}. An error check's finding fails. A warning check's finding is
 * a warning, and fails when warnings are made errors. A note check's finding is a note; a strict run makes
 * it a warning (which then fails when warnings are made errors too). Warnings made errors alone leave notes
 * notes: a gate that fails on warnings does not start failing on what PyTorch passes and most correct ops
 * get. Both switches come from the run's options or from a spec file for its own ops.
 *
 * @param warningsAsErrors whether findings that are warnings fail ({@code --warnings-as-errors})
 * @param strict whether findings of note checks are warnings ({@code --strict})
 */
public record SeverityPolicy(boolean warningsAsErrors, boolean strict) {
  /** Warnings stay warnings, notes notes. */
  public static final SeverityPolicy DEFAULT = new SeverityPolicy(false, false);

  /** Warnings fail; notes stay notes. */
  public static final SeverityPolicy WARNINGS_AS_ERRORS = new SeverityPolicy(true, false);

  /** Notes are warnings; warnings stay warnings. */
  public static final SeverityPolicy STRICT = new SeverityPolicy(false, true);

  /** A policy that is not strict. */
  public SeverityPolicy(boolean warningsAsErrors) {
    this(warningsAsErrors, false);
  }

  /** The outcome a finding of {@code check} has. */
  public Outcome findingOutcome(CheckInfo check) {
    return switch (check.severity()) {
      case ERROR -> Outcome.FAILED;
      case WARNING -> warningsAsErrors ? Outcome.FAILED : Outcome.WARNING;
      case NOTE -> !strict ? Outcome.NOTE : warningsAsErrors ? Outcome.FAILED : Outcome.WARNING;
    };
  }

  /** This policy, made stricter by {@code other} (a spec file that makes its warnings errors, or is strict). */
  public SeverityPolicy and(SeverityPolicy other) {
    return new SeverityPolicy(warningsAsErrors || other.warningsAsErrors, strict || other.strict);
  }
}
