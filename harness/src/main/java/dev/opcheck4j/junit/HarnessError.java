package dev.opcheck4j.junit;

/**
 * A harness error (an Errored result, or a run that could not finish) as a test error: counted
 * apart from failures by every JUnit report, with the rendered result as its message.
 */
public final class HarnessError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public HarnessError(String rendered) {
    super(rendered, null, false, false);
  }

}
