package dev.opcheck4j.api;

import java.util.Locale;

/** The verdict of one check on one (op, device, example); a harness bug is {@link #ERRORED}, never {@link #FAILED}. */
public enum Outcome {
  PASSED,
  FAILED,
  SKIPPED,
  ERRORED;

  /** The lower-case name used in reports: {@code passed}, {@code failed}, {@code skipped}, {@code errored}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
