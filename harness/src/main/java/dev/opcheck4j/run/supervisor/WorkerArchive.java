package dev.opcheck4j.run.supervisor;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Class-data sharing for worker JVMs. A worker loads thousands of classes (the harness, Jackson,
 * JavaCPP and the PyTorch presets); mapped from an archive they are not parsed and verified again
 * at each start, which takes about a tenth of a second off starting a worker. The first worker of a
 * class path writes the archive as it exits; later workers map it.
 *
 * <p>Only where the launcher says where archives go ({@code -Dopcheck4j.workerArchives=DIR}, set by
 * {@code ./opcheck}) and every class path entry is a jar, as CDS requires. Under Surefire the class
 * path is a manifest-only jar that changes each run: an archive per run would cost more than it saves.
 */
public final class WorkerArchive {
  public static final String PROPERTY = "opcheck4j.workerArchives";
  /** One worker of this process writes an archive at a time. */
  private static final AtomicBoolean WRITING = new AtomicBoolean();

  private final Path file;

  private WorkerArchive(Path file) {
    this.file = file;
  }

  /**
   * JVM options for a new worker.
   *
   * @param jvm options to add to its command line
   * @param writing where that worker writes the archive as it exits (see {@link #written}), or null
   */
  public record Options(List<String> jvm, Path writing) {}

  /** The archive for workers with {@code classPath}, when archives are configured and CDS can archive it. */
  public static Optional<WorkerArchive> configured(String classPath) {
    String dir = System.getProperty(PROPERTY, "");
    if (dir.isBlank()) {
      return Optional.empty();
    }
    // the JVM refuses an archive made with other jars; a rebuilt jar gets an archive of its own
    StringBuilder key = new StringBuilder(System.getProperty("java.home") + "|" + System.getProperty("java.vm.version"));
    try {
      for (String e : classPath.split(File.pathSeparator)) {
        Path p = Path.of(e);
        if (!e.endsWith(".jar") || !Files.isRegularFile(p)) {
          return Optional.empty();
        }
        key.append('|').append(e).append(':').append(Files.size(p)).append(':').append(Files.getLastModifiedTime(p).toMillis());
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.of(new WorkerArchive(Path.of(dir).toAbsolutePath().resolve("worker-" + digest(key.toString()) + ".jsa")));
  }

  private static String digest(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)), 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Maps the archive when it exists; else has this worker write it at exit, unless another worker of
   * this process is writing it or writing it failed before (then neither).
   */
  public Options options() {
    if (Files.isRegularFile(file)) {
      return new Options(List.of("-XX:SharedArchiveFile=" + file), null);
    }
    if (Files.exists(failedMarker()) || !WRITING.compareAndSet(false, true)) {
      return new Options(List.of(), null);
    }
    try {
      Files.createDirectories(file.getParent());
    } catch (IOException e) {
      WRITING.set(false);
      return new Options(List.of(), null);
    }
    Path tmp = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
    return new Options(List.of("-XX:ArchiveClassesAtExit=" + tmp), tmp);
  }

  /**
   * The worker writing {@code tmp} has exited with {@code status}: after a clean exit the archive is
   * put in place for the next workers (in one move, so none maps a half-written one) and the
   * archives of earlier builds are deleted; when none was written, it is not tried again.
   */
  public void written(Path tmp, int status) {
    try {
      if (status == 0 && Files.isRegularFile(tmp) && Files.size(tmp) > 0) {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (var old = Files.newDirectoryStream(file.getParent(), "worker-*.jsa")) {
          for (Path p : old) {
            if (!p.equals(file)) {
              Files.deleteIfExists(p);
            }
          }
        }
      } else if (status == 0) {
        Files.writeString(failedMarker(), "the JVM wrote no class-data archive; see the first worker's log\n");
      } else {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      // without an archive workers start as they did before
    } finally {
      WRITING.set(false);
    }
  }

  /** The archive was written and killed unfinished: the next worker may try again. */
  public void abandoned(Path tmp) {
    try {
      Files.deleteIfExists(tmp);
    } catch (IOException e) {
      // a leftover temporary file is never mapped (its name is not the archive's)
    } finally {
      WRITING.set(false);
    }
  }

  private Path failedMarker() {
    return file.resolveSibling(file.getFileName() + ".failed");
  }
}
