package dev.opcheck4j.api;

import java.io.IOException;
import java.nio.file.Path;

/**
 * One output format of a finished run (JSON, HTML, ...). Implementations are found with
 * {@link java.util.ServiceLoader}; they read results through this package only.
 */
public interface ReportFormat {
  /** Short lower-case name, e.g. {@code json}. */
  String name();

  /** Writes the report into {@code dir} (created if missing) and returns the file written. */
  Path write(RunReport report, Path dir) throws IOException;

  /**
   * Deletes what {@link #write} leaves in {@code dir} (and nothing else), so that when a write fails
   * midway (a full disk) no cut-off report of this format, and none of an earlier run, is left to be read.
   */
  void discard(Path dir) throws IOException;
}
