package dev.opcheck4j.run;

import dev.opcheck4j.torch.LibraryLoadException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The directory a run's workers write their logs, step files and answer logs into: the report dir
 * the request names, or a temporary one. A run that never starts (a library that does not load, a
 * spec error) leaves no report dir behind, and a temporary one goes unless it holds evidence.
 */
final class RunDirectory {
  private final Path path;
  private final boolean temporary;
  /** Whether the report dir was there before the run: then a run that never starts leaves it. */
  private final boolean existed;
  /** The log a load failure's message names, kept whatever else goes; null: none. */
  private Path keep;

  private RunDirectory(Path path, boolean temporary) {
    this.path = path;
    this.temporary = temporary;
    this.existed = !temporary && Files.exists(path);
    if (existed) {
      deleteStaleWorkerFiles(path);
    }
  }

  /**
   * {@code reportDir}, or a new temporary directory when it is null. The answer logs and step files
   * an earlier run left in {@code reportDir} (one killed before its workers were ready) are deleted:
   * a worker's own are deleted as it becomes ready, so none can be this run's.
   */
  static RunDirectory of(Path reportDir) {
    if (reportDir != null) {
      return new RunDirectory(reportDir, false);
    }
    try {
      return new RunDirectory(Files.createTempDirectory("opcheck4j-run-"), true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code e}, whose worker log (the evidence its one-line message points at) {@link #close} keeps. */
  LibraryLoadException keeping(LibraryLoadException e) {
    keep = e.log().orElse(null);
    return e;
  }

  Path path() {
    return path;
  }

  /**
   * Tidies up after a run whose first {@code workers} workers were numbered (a temporary directory
   * goes whole, unless it holds evidence), {@code ran} when the run got past planning.
   */
  void close(boolean ran, int workers) {
    deleteWorkerTemporaryFolders();
    if (keep != null && !temporary) {
      deleteWorkerLogs(workers, keep);
    } else if (keep != null) {
      deleteIfClean(keep);
    } else if (temporary || !ran && !existed) {
      deleteIfClean(null);
    } else if (!ran) {
      deleteWorkerLogs(workers, null);
    }
  }

  /**
   * Deletes the logs, step files and answer logs of the first {@code count} workers of a run that never
   * started (its dir was there before), except the log {@code keep} (null: none).
   */
  private void deleteWorkerLogs(int count, Path keep) {
    for (int n = 1; n <= count; n++) {
      try {
        Path log = path.resolve("worker-" + n + ".log");
        if (!log.equals(keep)) {
          Files.deleteIfExists(log);
        }
        Files.deleteIfExists(path.resolve("worker-" + n + ".step"));
        Files.deleteIfExists(path.resolve("worker-" + n + ".answers"));
      } catch (IOException e) {
        // a leftover log of a run that never started is harmless
      }
    }
  }

  /**
   * Deletes the workers' own temporary folders ({@code worker-N.tmp}, their {@code $TMPDIR}): what a package
   * load left there when its worker died before deleting it. They hold no evidence.
   */
  private void deleteWorkerTemporaryFolders() {
    try (DirectoryStream<Path> folders = Files.newDirectoryStream(path, "worker-*.tmp")) {
      for (Path folder : folders) {
        try (Stream<Path> tree = Files.walk(folder)) {
          for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        }
      }
    } catch (IOException e) {
      // a folder that cannot be listed or deleted is left; the next run into this dir tries again
    }
  }

  private static void deleteStaleWorkerFiles(Path dir) {
    try (DirectoryStream<Path> stale = Files.newDirectoryStream(dir, "worker-*.{answers,step}")) {
      for (Path p : stale) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // what cannot be listed or deleted is left, as before; it holds nothing this run reads
    }
  }

  /**
   * Deletes the directory unless a worker left an error file in it (results point there) or it holds
   * {@code keep} (null: none).
   */
  private void deleteIfClean(Path keep) {
    try (Stream<Path> files = Files.walk(path)) {
      List<Path> all = files.sorted(Comparator.reverseOrder()).toList();
      if (all.stream().anyMatch(p -> p.getFileName().toString().startsWith("hs_err") || p.equals(keep))) {
        return;
      }
      for (Path p : all) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // a leftover temporary directory is harmless
    }
  }
}
