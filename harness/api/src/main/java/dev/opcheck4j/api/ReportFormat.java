package dev.opcheck4j.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * One output format of a finished run (JSON, HTML, ...). Implementations are found with
 * {@link java.util.ServiceLoader}; they read results through this package only.
 */
public interface ReportFormat {
  /** Short lower-case name, e.g. {@code json}. */
  String name();

  /**
   * Whether a run with a report dir writes this format unless told otherwise; false for one written
   * only when asked ({@code --allure}, engine key {@code opcheck4j.allure}), whose output an earlier
   * run left there is then {@linkplain #discard discarded}.
   */
  default boolean byDefault() {
    return true;
  }

  /** Writes the report into {@code dir} (created if missing) and returns the file written. */
  Path write(RunReport report, Path dir) throws IOException;

  /**
   * Deletes what {@link #write} leaves in {@code dir} (and nothing else), so that when a write fails
   * midway (a full disk) no cut-off report of this format, and none of an earlier run, is left to be read.
   */
  void discard(Path dir) throws IOException;

  /**
   * For a format with a file per result: starts writing them into {@code dir} as the run's results
   * arrive, so that its end is not spent on thousands of small files. {@link #write} on the same
   * object afterwards writes only what is left, and writes everything again when the report is not
   * the run the stream heard. Null (the default): the format is written whole by {@link #write}.
   *
   * @param checks the checks' metadata the report will carry
   * @param asReported what the report will hold for each result the run gives
   */
  default Streaming stream(Path dir, List<CheckInfo> checks, UnaryOperator<CheckResult> asReported) {
    return null;
  }

  /** A format's files being written while the run goes on. */
  interface Streaming extends RunListener {
    /** Waits for the files being written and deletes them: the run ended without a report. */
    void abandon();
  }
}
