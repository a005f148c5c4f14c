package dev.opcheck4j.api;

import java.util.Locale;

/**
 * The verdict of one check on one (op, device, example); a harness bug is {@link #ERRORED}, never
 * {@link #FAILED}; a finding of a warning-severity check is {@link #WARNING} and does not fail the run.
 */
public enum Outcome {
  PASSED,
  FAILED,
  SKIPPED,
  ERRORED,
  WARNING;

  /** The lower-case name used in reports: {@code passed}, {@code failed}, {@code skipped}, ... */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
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
