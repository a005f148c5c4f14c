package dev.opcheck4j.junit;

/**
 * A failed check as a test failure: the message is the rendered result (summary line and facts)
 * and there is no stack trace, since the defect is in the op, not in the harness or the test.
 */
public final class CheckFailedError extends AssertionError {
  private static final long serialVersionUID = 1L;

  public CheckFailedError(String rendered) {
    super(rendered);
    setStackTrace(new StackTraceElement[0]);
  }

  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }

}
