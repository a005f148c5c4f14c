package dev.opcheck4j.reporting;

import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.RunReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Writes a finished run's reports, the one way for the command line and the JUnit engine: every
 * format at once (each is a pass over the results of its own; on several cores they overlap), and a
 * format that fails is discarded (no cut-off file of it, and none of an earlier run, is left to be
 * read as whole) and reported, while the other formats are still written.
 */
public final class ReportWriter {
  private ReportWriter() {}

  /** What became of one format: the file written, or the failure that left no file of it. */
  public record Written(String format, Path file, Exception failure) {
    /** The line that says so: {@code report (json): DIR/opcheck-report.json}, or why it was not written. */
    public String line() {
      return failure == null ? "report (" + format + "): " + file
          : "report (" + format + ") not written: " + (failure.getMessage() != null ? failure.getMessage() : failure);
    }
  }

  /** Writes every format of {@code formats} into {@code dir} (created if missing), in their order in the answer. */
  public static List<Written> write(RunReport report, Path dir, List<ReportFormat> formats) throws IOException {
    Files.createDirectories(dir);
    ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, formats.size()), r -> {
      Thread t = new Thread(r, "opcheck4j-report");
      t.setDaemon(true);
      return t;
    });
    try {
      List<CompletableFuture<Path>> writing = new ArrayList<>();
      for (ReportFormat format : formats) {
        writing.add(CompletableFuture.supplyAsync(() -> {
          try {
            return format.write(report, dir);
          } catch (IOException e) {
            throw new CompletionException(e);
          }
        }, threads));
      }
      List<Written> written = new ArrayList<>();
      for (int i = 0; i < formats.size(); i++) {
        ReportFormat format = formats.get(i);
        try {
          written.add(new Written(format.name(), writing.get(i).join(), null));
        } catch (CompletionException c) {
          if (c.getCause() instanceof Error e) {
            throw e;
          }
          discard(format, dir);
          written.add(new Written(format.name(), null, (Exception) c.getCause()));
        }
      }
      return written;
    } finally {
      threads.shutdown();
    }
  }

  private static void discard(ReportFormat format, Path dir) {
    try {
      format.discard(dir);
    } catch (IOException | RuntimeException ignored) {
      // the write's failure is the one to report; a file that cannot be deleted stays as it was
    }
  }
}
