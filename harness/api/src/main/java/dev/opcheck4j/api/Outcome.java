package dev.opcheck4j.api;

import java.util.Locale;

/**
 * The verdict of one check on one (op, device, example); a harness bug is {@link #ERRORED}, never
 * {@link #FAILED}. A finding of a check of {@link Severity#WARNING} is {@link #WARNING}: visible, but
 * it never changes the exit code unless warnings are made errors (then it is {@link #FAILED}).
 */
public enum Outcome {
  PASSED,
  WARNING,
  FAILED,
  SKIPPED,
  ERRORED;

  /** The lower-case name used in reports: {@code passed}, {@code warning}, {@code failed}, {@code skipped}, {@code errored}. */
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
