package dev.opcheck4j.api;

import java.util.Locale;

/**
 * The verdict of one check on one (op, device, example); a harness bug is {@link #ERRORED}, never
 * {@link #FAILED}. A finding of a check of {@link Severity#WARNING} is {@link #WARNING}: visible, but
 * it never changes the exit code unless warnings are made errors (then it is {@link #FAILED}). A finding
 * of a check of {@link Severity#NOTE} is {@link #NOTE}: in the reports and counted, never a warning and
 * never a change of exit code, unless the run is strict (then it is a warning: {@link SeverityPolicy}). A failure
 * an expected-failures file lists is {@link #EXPECTED_FAILURE} (it passes the run), and an entry of that
 * file whose check no longer fails is {@link #UNEXPECTED_PASS} (it fails the run), as opcheck's failures
 * dict does; both carry the entry as {@link CheckResult#expectation()}.
 */
public enum Outcome {
  PASSED,
  WARNING,
  NOTE,
  FAILED,
  SKIPPED,
  ERRORED,
  EXPECTED_FAILURE,
  UNEXPECTED_PASS;

  /**
   * The lower-case name used in reports: {@code passed}, {@code warning}, {@code note}, {@code failed}, {@code skipped},
   * {@code errored}, {@code expected failure}, {@code unexpected pass}.
   */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', ' ');
  }

  /**
   * Whether the check ran and passed the run: passed, or found something that is a warning or a note. A
   * check that requires it may run, and its generated inputs are tried.
   */
  public boolean passes() {
    return this == PASSED || this == WARNING || this == NOTE;
  }

  /** Whether a result of this outcome fails the run (an unexpected pass does: remove its entry). */
  public boolean failsRun() {
    return this == FAILED || this == UNEXPECTED_PASS;
  }

  /** The outcome with this label, or null. */
  public static Outcome ofLabel(String label) {
    for (Outcome o : values()) {
      if (o.label().equals(label)) {
        return o;
      }
    }
    return null;
  }
}
