package dev.opcheck4j.api;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads a machine-format report back (for {@code merge}); found with {@link java.util.ServiceLoader}.
 * A report of a version it cannot read is rejected with {@link UnsupportedReportException}.
 */
public interface ReportReader {
  /** Reads the report in {@code file}. */
  RunReport read(Path file) throws IOException, UnsupportedReportException;

  /** A report this reader cannot read (unknown schema version, not a report); the message says which. */
  final class UnsupportedReportException extends Exception {
    public UnsupportedReportException(String message) {
      super(message);
    }
  }
}
