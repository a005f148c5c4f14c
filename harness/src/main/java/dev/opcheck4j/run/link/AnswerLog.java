package dev.opcheck4j.run.link;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The answers of the exchange in flight and the unit running, in a file mapped into the worker's
 * memory ({@code worker-N.answers}). Writing one is a copy into the page cache, no system call, and
 * the pages outlive a worker the kernel kills. So a worker sends the answers of an exchange in one
 * write at its end, instead of one write per unit that wakes the parent each time, and nothing is
 * lost: when the worker dies or hangs, the parent reads here the answers it was not sent, and the
 * unit that was running; while it waits, the unit running tells it when each unit's deadline starts.
 *
 * <p>Layout: the first unit id of the exchange the log holds (long, at 0), the id of the unit running
 * (long, at 8), the bytes of answers written (int, at 16), the length of the worker's output (its log) when
 * the unit running started (long, at 24), then from {@link #DATA} one {@link Wire} line per answer. The counts are published with release stores after what they count is written.
 *
 * <p>The file is sparse: a page gets its block when first written. On a full file system there is no
 * block to give, and the access faults; the JVM turns that fault into an {@link InternalError} at the
 * access. The log then counts as broken on that side: the worker sends each answer at once, as it does
 * without a log, and the parent reads nothing kept. So a full disk never becomes the worker's death (a
 * crash the op did not cause) or the end of the parent's job thread.
 */
public final class AnswerLog {
  /** The mapping's size; only the pages written take memory. An answer that does not fit is sent at once. */
  static final int SIZE = 4 << 20;
  private static final int EXCHANGE = 0;
  private static final int RUNNING = 8;
  private static final int USED = 16;
  private static final int OUTPUT = 24;
  private static final int DATA = 64;
  private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
  private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

  private final MappedByteBuffer page;
  /** Set once an access faulted: the file system could not back a page. */
  private boolean broken;

  private AnswerLog(MappedByteBuffer page) {
    this.page = page;
  }

  /** Where the answers of the worker logging to {@code log} are kept. */
  public static Path beside(Path log) {
    return log.resolveSibling(log.getFileName().toString().replaceFirst("\\.log$", "") + ".answers");
  }

  /** The worker's side: a new, empty log. */
  public static AnswerLog create(Path file) throws IOException {
    AnswerLog log = new AnswerLog(MappedFile.create(file, SIZE));
    log.running(-1);
    log.exchange(-1);
    return log;
  }

  /** The parent's side: the log the worker made, once it has made it. */
  public static Optional<AnswerLog> open(Path file) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return ch.size() < SIZE ? Optional.empty() : Optional.of(new AnswerLog(ch.map(FileChannel.MapMode.READ_ONLY, 0, SIZE)));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Starts the exchange whose first unit is {@code id}: the answers of the last one are dropped. */
  public void exchange(long id) {
    unlessBroken(() -> {
      INT.setRelease(page, USED, 0);
      LONG.setRelease(page, EXCHANGE, id);
    });
  }

  /** Unit {@code id} starts (-1: none runs). */
  public void running(long id) {
    unlessBroken(() -> LONG.setRelease(page, RUNNING, id));
  }

  /**
   * Unit {@code id} starts, the worker's log {@code output} bytes long: what the unit's kernels print comes
   * after, and what earlier units printed before (a crash's root cause is read from there on).
   */
  public void running(long id, long output) {
    unlessBroken(() -> {
      LONG.setRelease(page, OUTPUT, output);
      LONG.setRelease(page, RUNNING, id);
    });
  }

  /** How long the worker's log was when the unit running started; -1 when none runs or it is not known. */
  public long outputAtStart() {
    try {
      return broken || (long) LONG.getAcquire(page, RUNNING) < 0 ? -1 : (long) LONG.getAcquire(page, OUTPUT);
    } catch (InternalError fault) {
      broken = true;
      return -1;
    }
  }

  /** Keeps an answer's line (with its newline); false when it does not fit, and then it must be sent at once. */
  public boolean keep(byte[] line) {
    if (broken) {
      return false;
    }
    int used = (int) INT.get(page, USED);
    if (DATA + (long) used + line.length > SIZE) {
      return false;
    }
    return unlessBroken(() -> {
      page.put(DATA + used, line);
      INT.setRelease(page, USED, used + line.length);
    });
  }

  /** Runs {@code access} unless an earlier one faulted; false when the log is (now) broken. */
  private boolean unlessBroken(Runnable access) {
    if (!broken) {
      try {
        access.run();
      } catch (InternalError fault) {
        // a page the file system could not back (see the class comment)
        broken = true;
      }
    }
    return !broken;
  }

  /** The unit running, -1 when none. */
  public long running() {
    try {
      return broken ? -1 : (long) LONG.getAcquire(page, RUNNING);
    } catch (InternalError fault) {
      broken = true;
      return -1;
    }
  }

  /** The lines kept for the exchange whose first unit is {@code id}; none when the log holds another. */
  public List<String> lines(long id) {
    try {
      return broken ? List.of() : kept(id);
    } catch (InternalError fault) {
      broken = true;
      return List.of();
    }
  }

  private List<String> kept(long id) {
    int used = (int) INT.getAcquire(page, USED);
    if ((long) LONG.getAcquire(page, EXCHANGE) != id || used <= 0) {
      return List.of();
    }
    byte[] bytes = new byte[Math.min(used, SIZE - DATA)];
    page.get(DATA, bytes);
    List<String> lines = new ArrayList<>();
    int from = 0;
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == '\n') {
        lines.add(new String(bytes, from, i - from, StandardCharsets.UTF_8));
        from = i + 1;
      }
    }
    return lines;
  }
}
