package dev.opcheck4j.run.supervisor;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a worker wrote to its log (its stdout and stderr), as the parent tells it after the worker died
 * or missed a deadline.
 *
 * @param rootCause what the worker wrote while the unit in flight ran (from its start, as the answer log tells it;
 *     else from the exchange's), without the JVM's crash banner (its {@code #} lines, and its report's step
 *     timeouts): libtorch's error text, "terminate called after throwing ...", an abort or assertion message; its last {@value #ROOT_CAUSE_LINES} such lines, joined with " | "
 *     (empty when it wrote none)
 * @param tail the log's last lines, joined with " | ", each shortened to 160 characters, and where to
 *     read all of it
 */
record WorkerOutput(String rootCause, String tail) {
  private static final int ROOT_CAUSE_LINES = 4;
  private static final int TAIL_LINES = 6;
  private static final int EXCHANGE_BYTES = 16_384;
  private static final int LAST_BYTES = 4096;

  /** What the worker logged in {@code log}; the unit in flight started when the log was {@code mark} bytes long. */
  static WorkerOutput read(Path log, long mark) {
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      long last = Math.max(0, f.length() - LAST_BYTES);
      return of(log, text(f, Math.max(mark, f.length() - EXCHANGE_BYTES)), text(f, last), last > 0);
    } catch (IOException e) {
      return new WorkerOutput("", "(unreadable: " + e.getMessage() + ")");
    }
  }

  private static String text(RandomAccessFile f, long from) throws IOException {
    byte[] buf = new byte[(int) Math.max(0, f.length() - from)];
    f.seek(from);
    f.readFully(buf);
    return new String(buf, StandardCharsets.UTF_8);
  }

  /**
   * @param log the log, named in the tail
   * @param exchange what the worker wrote since the exchange in flight was sent
   * @param last the end of the log
   * @param cut whether {@code last} starts in the middle of the log (its first line, partial, is left out)
   */
  static WorkerOutput of(Path log, String exchange, String last, boolean cut) {
    List<String> causes = new ArrayList<>();
    for (String l : exchange.split("\n")) {
      String t = l.strip();
      if (!t.isEmpty() && !t.startsWith("#") && !t.startsWith(ErrorFile.STALLED)) {
        causes.add(shortened(t, 300));
      }
    }
    String rootCause = String.join(" | ", causes.subList(Math.max(0, causes.size() - ROOT_CAUSE_LINES), causes.size()));
    String[] lines = last.split("\n");
    List<String> tail = new ArrayList<>();
    for (int i = Math.max(cut ? 1 : 0, lines.length - TAIL_LINES); i < lines.length; i++) {
      String l = lines[i].strip();
      if (!l.isEmpty()) {
        tail.add(shortened(l, 160));
      }
    }
    return new WorkerOutput(rootCause,
        tail.isEmpty() ? "(nothing)" : String.join(" | ", tail) + "  (all of it: " + log.toAbsolutePath() + ")");
  }

  private static String shortened(String line, int max) {
    return line.length() > max ? line.substring(0, max) + "..." : line;
  }
}
