package dev.opcheck4j.run.supervisor;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the parent tells of a worker that died in the middle of an exchange, from what the worker left:
 * its exit status, the JVM's error file when it wrote one, and its output. Built from those values
 * alone; reading them is the caller's part.
 *
 * @param status the worker's exit status: {@code 128 + N} when signal {@code N} ended it, -1 when unknown
 * @param killedByUs whether this process killed it (a stop, or a deadline): a SIGKILL from anyone else
 *     is most likely the out-of-memory killer
 * @param errorFile the JVM's error file, when it wrote one
 * @param output what the worker wrote
 */
record CrashReport(int status, boolean killedByUs, Optional<ErrorFile> errorFile, WorkerOutput output) {
  /** The crash by its signal: the error file's, else the exit status's ({@code exit N} when no signal ended it). */
  Cause.Crash cause() {
    return new Cause.Crash(errorFile.map(h -> h.cause().split(" ")[0]).filter(w -> w.startsWith("SIG"))
        .orElse(signal().orElse("exit " + status)));
  }

  /** The address the fault that ended the worker was about, when its error file gives one. */
  Optional<Long> faultAddress() {
    return errorFile.flatMap(ErrorFile::faultAddress);
  }

  /** Whether the thread that crashed is a native one, not the thread the unit ran on (the error file says so). */
  boolean offUnitThread() {
    return errorFile.map(ErrorFile::nativeThread).orElse(false);
  }

  /** One line: the error file's signal line, else what the exit status means. */
  String message() {
    return errorFile.map(ErrorFile::cause).orElseGet(this::statusText);
  }

  /** What is known, in display order: root cause, exit status, native frames, error file, worker output. */
  List<Fact> facts() {
    List<Fact> facts = new ArrayList<>();
    if (!output.rootCause().isEmpty()) {
      facts.add(Fact.of("root cause", output.rootCause()));
    }
    Optional<String> stalled = errorFile.flatMap(ErrorFile::stalledStep);
    if (stalled.isPresent() && status == 128 + 9) { // killed by the parent (WorkerLaunch#killedStalled), not aborted
      facts.add(Fact.of("exit status", status + " (killed by opcheck4j once the JVM's crash report stalled)"));
      facts.add(Fact.of(Fact.CRASH_REPORT, "stalled in its step \"" + stalled.get() + "\": the crash left a lock held that the"
          + " report needs (glibc's allocator's, when the kernel damaged the heap), so the worker was killed there, not"
          + " after -XX:ErrorLogTimeout; the error file has what the report wrote before it"));
    } else {
      facts.add(Fact.of("exit status", status + signal().map(s -> " (signal " + (status - 128) + ", " + s + ")")
          .orElse(errorFile.isPresent() ? " (after the JVM wrote its error file)" : "")));
    }
    errorFile.ifPresent(h -> {
      if (h.nativeThread()) {
        facts.add(Fact.of("crashed thread", "a native thread, not the one the unit ran on: one native code started"
            + " (a thread pool's, or one a kernel left running)"));
      }
      if (!h.frames().isEmpty()) {
        facts.add(Fact.of("native frames", String.join(" | ", h.frames())));
      }
      facts.add(Fact.of(Fact.ERROR_FILE, h.file().toAbsolutePath()));
    });
    facts.add(Fact.of("worker output", output.tail()));
    return facts;
  }

  /** The name of the signal that ended the worker, when one did. */
  private Optional<String> signal() {
    return status > 128 ? Optional.of(signalName(status - 128)) : Optional.empty();
  }

  private String statusText() {
    if (status <= 128) {
      return "the worker exited with status " + status + " in the middle of the unit (a kernel called exit(" + status + ")?)";
    }
    int sig = status - 128;
    if (sig == 9 && !killedByUs) {
      return "killed by SIGKILL from outside: most likely the OS's out-of-memory killer";
    }
    if (sig == 11) {
      return "killed by SIGSEGV with no JVM error file (a native stack overflow, e.g. unbounded recursion, leaves none)";
    }
    return "killed by " + signalName(sig) + (sig == 6 ? " (abort(), or std::terminate from an uncaught C++ exception)" : "");
  }

  private static String signalName(int sig) {
    return switch (sig) {
      case 4 -> "SIGILL";
      case 6 -> "SIGABRT";
      case 7 -> "SIGBUS";
      case 8 -> "SIGFPE";
      case 9 -> "SIGKILL";
      case 11 -> "SIGSEGV";
      case 15 -> "SIGTERM";
      default -> "signal " + sig;
    };
  }
}
