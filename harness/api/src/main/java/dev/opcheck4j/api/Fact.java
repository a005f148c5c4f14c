package dev.opcheck4j.api;

import java.util.Objects;

/** One key/value line of a result, e.g. {@code expected: argument 'x' unchanged}; neither part is null. */
public record Fact(String key, String value) {
  /**
   * The key of a fact of a passed result that says what the check could not look at on that op (a run
   * must say what it did not check): the console summary gathers them per check.
   */
  public static final String NOT_CHECKED = "not checked";

  /** The key of the input a generated failure was found on, as the message shape shows it. */
  public static final String EXAMPLE = "example";

  /** The key of the input a generated failure shrank to, with its shrink steps. */
  public static final String MINIMAL_EXAMPLE = "minimal example";

  /** The key of the error file a crashed worker's JVM wrote ({@code hs_err_pidN.log}), as an absolute path. */
  public static final String ERROR_FILE = "error file";

  /**
   * The key of what became of a crashed worker's JVM's own crash report when a step of it stalled (the crash left a
   * lock held that the report needs): the worker was killed there.
   */
  public static final String CRASH_REPORT = "crash report";

  /** The key of how many inputs a check on generated inputs judged (passed, or a share of them skipped). */
  public static final String INPUTS_CHECKED = "inputs checked";

  /** The key of where generation stopped early for a check, what it cost the check, and why. */
  public static final String GENERATION_STOPPED = "generation stopped";

  public Fact {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
  }

  public static Fact of(String key, Object value) {
    return new Fact(key, String.valueOf(value));
  }
}
