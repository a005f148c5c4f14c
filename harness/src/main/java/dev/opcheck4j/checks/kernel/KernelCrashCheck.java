package dev.opcheck4j.checks.kernel;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.SupervisorCheck;
import java.time.Duration;
import java.util.List;

/**
 * The process survives every kernel call: a worker that dies in a unit (a signal, abort, an
 * uncaught C++ exception, a kernel calling exit(), the OS killing it for memory) is a failed result
 * of this check for that unit. Given by the supervisor; there is nothing to evaluate on its own.
 */
public final class KernelCrashCheck extends CheckBase implements SupervisorCheck {
  public static final String ID = "kernel.crash";

  public KernelCrashCheck() {
    super(Declaration.error(ID, "no kernel call crashes or ends the process"));
  }

  @Override
  public boolean covers(Cause death) {
    return death instanceof Cause.Crash;
  }

  @Override
  public Finding finding(Cause death, String happened, Duration deadline, List<Fact> details) {
    return new Finding("the kernel returns or raises; the process survives", happened,
        "the native frames name the faulting function; rerun under gdb, or build the library with -fsanitize=address",
        death, details, List.of());
  }
}
