package dev.opcheck4j.run.supervisor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a HotSpot error file ({@code hs_err_pidN.log}, written as a worker JVM crashes) says about the
 * crash.
 *
 * @param file where the JVM wrote it
 * @param cause the signal line, e.g. {@code SIGSEGV (0xb) at pc=0x00007f..., pid=123, tid=124}
 * @param frames the top native frames (at most {@value #FRAMES}), or the problematic frame alone
 * @param faultAddress the address a SIGSEGV or SIGBUS was about ({@code siginfo}'s {@code si_addr}), when given
 * @param nativeThread whether the thread that crashed is a native one ({@code Current thread is native thread}):
 *     not a thread of the JVM, so not the one a unit runs on, but one native code started (a thread pool's, or one
 *     a kernel left running)
 * @param stalledStep the step of the JVM's report that timed out ({@code [timeout occurred during error reporting in
 *     step "..."]}), when one did: the crash damaged the heap the report allocates from
 */
record ErrorFile(Path file, String cause, List<String> frames, Optional<Long> faultAddress, boolean nativeThread,
    Optional<String> stalledStep) {
  private static final java.util.regex.Pattern SI_ADDR = java.util.regex.Pattern.compile(
      "^siginfo: si_signo: \\d+ \\(SIG(?:SEGV|BUS)\\).*si_addr: 0x([0-9a-fA-F]+)");

  ErrorFile(Path file, String cause, List<String> frames) {
    this(file, cause, frames, Optional.empty(), false, Optional.empty());
  }

  /** How HotSpot says a step of its report timed out (each step gets a quarter of {@code -XX:ErrorLogTimeout}). */
  static final String STALLED = "[timeout occurred during error reporting in step \"";

  /** The {@code -XX:ErrorFile} pattern of a worker: one file per process id, in the run directory. */
  static final String PATTERN = "hs_err_pid%p.log";
  private static final int FRAMES = 6;

  /** Where the worker JVM of process {@code pid}, started in {@code dir}, writes its error file. */
  static Path of(Path dir, long pid) {
    return dir.resolve(PATTERN.replace("%p", Long.toString(pid)));
  }

  /** The error file at {@code file}, when the JVM wrote one (a native stack overflow or a kill leaves none). */
  static Optional<ErrorFile> read(Path file) {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(parse(file, Files.readString(file, StandardCharsets.ISO_8859_1)));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether the error file at {@code file} says a step of the JVM's report timed out: the report waits on a lock
   * that the crash left held (glibc's allocator's, when the kernel damaged the heap), and every later step that
   * allocates waits as long, up to {@code -XX:ErrorLogTimeout} in all. Read while the worker is still alive; a file
   * last written before {@code since}, the worker's start, is an earlier worker's of the same process id.
   */
  static boolean stalled(Path file, java.time.Instant since) {
    if (!Files.isRegularFile(file)) {
      return false;
    }
    try {
      return !Files.getLastModifiedTime(file).toInstant().isBefore(since)
          && Files.readString(file, StandardCharsets.ISO_8859_1).contains(STALLED);
    } catch (IOException e) {
      return false;
    }
  }

  /** What {@code text}, the content of the error file at {@code file}, says. */
  static ErrorFile parse(Path file, String text) {
    List<String> lines = text.lines().toList();
    String cause = null;
    List<String> frames = new ArrayList<>();
    boolean inFrames = false;
    Optional<Long> fault = Optional.empty();
    boolean nativeThread = false;
    Optional<String> stalledStep = Optional.empty();
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i);
      int stall = l.indexOf(STALLED);
      if (stalledStep.isEmpty() && stall >= 0) {
        int from = stall + STALLED.length();
        int to = l.indexOf('"', from);
        stalledStep = Optional.of(to > from ? l.substring(from, to) : l.substring(from));
      }
      if (l.startsWith("Current thread is native thread")) {
        nativeThread = true;
      }
      java.util.regex.Matcher addr = SI_ADDR.matcher(l);
      if (fault.isEmpty() && addr.find()) {
        fault = Optional.of(Long.parseUnsignedLong(addr.group(1), 16));
      }
      if (cause == null && l.startsWith("# A fatal error has been detected")) {
        for (int j = i + 1; j < lines.size() && cause == null; j++) {
          String c = lines.get(j).replaceFirst("^#\\s*", "").strip();
          if (!c.isEmpty()) {
            cause = c;
          }
        }
      } else if (cause == null && l.startsWith("# There is insufficient memory")) {
        cause = "the JVM ran out of native memory: " + l.substring(1).strip();
      } else if (l.startsWith("Native frames:")) {
        inFrames = true;
      } else if (inFrames) {
        if (l.isBlank() || frames.size() == FRAMES) {
          inFrames = false;
        } else {
          frames.add(l.strip().replaceAll("\\s+", " "));
        }
      }
    }
    if (frames.isEmpty()) {
      for (int i = 0; i < lines.size() - 1; i++) {
        if (lines.get(i).startsWith("# Problematic frame:")) {
          frames.add(lines.get(i + 1).replaceFirst("^#\\s*", "").strip());
        }
      }
    }
    return new ErrorFile(file, cause == null ? "the JVM crashed (see the error file)" : cause, List.copyOf(frames), fault,
        nativeThread, stalledStep);
  }
}
