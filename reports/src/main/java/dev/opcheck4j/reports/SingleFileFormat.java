package dev.opcheck4j.reports;

import dev.opcheck4j.api.ReportFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A format that writes one file of a fixed name into the report dir, and so discards just that file. */
abstract class SingleFileFormat implements ReportFormat {
  private final String file;

  SingleFileFormat(String file) {
    this.file = file;
  }

  @Override
  public final void discard(Path dir) throws IOException {
    Files.deleteIfExists(dir.resolve(file));
  }
}
