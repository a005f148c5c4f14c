package dev.opcheck4j.reporting;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * One run at a time in a report dir: an exclusive lock on {@code DIR/.opcheck.lock}, which names its
 * holder (pid and command). Taking it also proves the dir can be written, before anything runs. The
 * operating system releases the lock of a process that dies, so a lock file left by a dead run is
 * taken over (with a note); the file is emptied when its run ends.
 */
public final class ReportDirLock implements AutoCloseable {
  public static final String NAME = ".opcheck.lock";

  /** The dir cannot be used: held by another run, or not writable. The message is the one line the user sees. */
  public static final class Refused extends Exception {
    Refused(String message) {
      super(message);
    }
  }

  private final FileChannel channel;
  private final FileLock lock;
  private final String note;

  private ReportDirLock(FileChannel channel, FileLock lock, String note) {
    this.channel = channel;
    this.lock = lock;
    this.note = note;
  }

  /**
   * Creates {@code dir} if needed and locks it for this process, started by {@code command}.
   *
   * @throws Refused when another run holds it, or it cannot be created or written
   */
  public static ReportDirLock acquire(Path dir, String command) throws Refused {
    try {
      Files.createDirectories(dir);
    } catch (FileAlreadyExistsException e) {
      throw new Refused("report dir " + dir + " cannot be created: " + e.getFile() + " is a file, not a directory");
    } catch (FileSystemException e) {
      throw new Refused("report dir " + dir + " cannot be created: " + reason(e));
    } catch (IOException e) {
      throw new Refused("report dir " + dir + " cannot be created: " + e.getMessage());
    }
    Path file = dir.resolve(NAME);
    FileChannel channel;
    try {
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (FileSystemException e) {
      throw new Refused("report dir " + dir + " is not writable: " + reason(e));
    } catch (IOException e) {
      throw new Refused("report dir " + dir + " is not writable: " + e.getMessage());
    }
    try {
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null; // this process holds it already, for another run
      }
      if (lock == null) {
        String holder = holder(channel).orElse("another run");
        channel.close();
        throw new Refused("report dir " + dir + " is in use by " + holder
            + "; wait for that run to end or give another --report-dir");
      }
      // the operating system released the lock: its holder died without emptying the file
      String note = holder(channel).map(h -> "report dir " + dir + ": took over the lock of " + h
          + ", which is no longer running").orElse(null);
      ProcessHandle self = ProcessHandle.current();
      channel.truncate(0);
      channel.write(ByteBuffer.wrap((self.pid() + "\n" + command + "\n").getBytes(StandardCharsets.UTF_8)), 0);
      channel.force(false);
      return new ReportDirLock(channel, lock, note);
    } catch (IOException e) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // the first failure is the one to report
      }
      throw new Refused("report dir " + dir + " is not writable: " + e.getMessage());
    }
  }

  /** "pid N (COMMAND)" of the lock file's last holder, if it names one. */
  private static Optional<String> holder(FileChannel channel) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(4096);
    channel.read(buf, 0);
    String[] lines = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).split("\n", 2);
    if (lines[0].isBlank()) {
      return Optional.empty();
    }
    String command = lines.length > 1 ? lines[1].strip() : "";
    return Optional.of("pid " + lines[0].strip() + (command.isEmpty() ? "" : " (" + command + ")"));
  }

  private static String reason(FileSystemException e) {
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    String why = e.getReason() != null ? e.getReason() : e.getMessage();
    return why.toLowerCase(java.util.Locale.ROOT).contains("not a directory") && e.getFile() != null
        ? e.getFile() + ": a path under a file" : why;
  }

  /** Why the lock was taken over from a run that died, or null when nothing was taken over. */
  public String note() {
    return note;
  }

  /** Empties the lock file and releases it. */
  @Override
  public void close() {
    try {
      channel.truncate(0);
      lock.release();
      channel.close();
    } catch (IOException e) {
      // the lock goes with the channel: nothing is left held
    }
  }
}
