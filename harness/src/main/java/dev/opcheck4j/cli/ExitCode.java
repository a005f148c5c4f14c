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
  HARNESS_ERROR(3),
  /** The run was stopped by SIGINT; its reports hold what it gathered, marked interrupted. */
  INTERRUPTED(130),
  /** The run was stopped by SIGTERM; its reports hold what it gathered, marked interrupted. */
  TERMINATED(143);

  private final int code;

  ExitCode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The exit code of a run stopped by {@code signal} ({@code SIGINT} or {@code SIGTERM}). */
  static ExitCode of(String signal) {
    return signal.equals("SIGTERM") ? TERMINATED : INTERRUPTED;
  }

  /** The exit code of a status from {@link dev.opcheck4j.run.RunOutcome#exitStatus}. */
  static ExitCode of(int status) {
    for (ExitCode c : values()) {
      if (c.code == status) {
        return c;
      }
    }
    throw new IllegalArgumentException("no exit code " + status);
  }
}
