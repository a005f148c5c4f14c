package dev.opcheck4j.checks.kernel;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckInfo.Scope;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;

/**
 * Every unit finishes before its deadline (60 s, {@code --timeout}, or the op's {@code "timeout"}
 * in the spec); one that does not is a failed result of this check, and its worker's process group
 * is killed. Given by the supervisor; there is nothing to evaluate on its own.
 */
public final class KernelTimeoutCheck extends CheckBase {
  public static final String ID = "kernel.timeout";

  public KernelTimeoutCheck() {
    super(CheckInfo.error(ID, Scope.SUPERVISOR, "every kernel call returns before the unit's deadline"));
  }

  @Override
  public Verdict evaluate(Subject s) {
    throw new UnsupportedOperationException(ID + " results come from the supervisor of the worker processes");
  }
}
