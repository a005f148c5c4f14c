package dev.opcheck4j.checks.kernel;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckInfo.Scope;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;

/**
 * The process survives every kernel call: a worker that dies in a unit (a signal, abort, an
 * uncaught C++ exception, a kernel calling exit(), the OS killing it for memory) is a failed result
 * of this check for that unit. Given by the supervisor; there is nothing to evaluate on its own.
 */
public final class KernelCrashCheck extends CheckBase {
  public static final String ID = "kernel.crash";

  public KernelCrashCheck() {
    super(CheckInfo.error(ID, Scope.SUPERVISOR, "no kernel call crashes or ends the process"));
  }

  @Override
  public Verdict evaluate(Subject s) {
    throw new UnsupportedOperationException(ID + " results come from the supervisor of the worker processes");
  }
}
