package dev.opcheck4j.cli;

/** Process exit codes of {@code ./opcheck}. */
public enum ExitCode {
  /** Every check passed (or was skipped with a reason). */
  OK(0),
  /** At least one check failed. */
  CHECK_FAILED(1),
  /** Bad usage, spec, library or op name. */
  INPUT_ERROR(2),
  /** A bug in the harness: a check errored or the run could not complete. */
  HARNESS_ERROR(3);

  private final int code;

  ExitCode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }
}
