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
 * Every unit finishes before its deadline (60 s, {@code --timeout}, or the op's {@code "timeout"}
 * in the spec); one that does not is a failed result of this check, and its worker's process group
 * is killed. Given by the supervisor; there is nothing to evaluate on its own.
 */
public final class KernelTimeoutCheck extends CheckBase implements SupervisorCheck {
  public static final String ID = "kernel.timeout";

  public KernelTimeoutCheck() {
    super(Declaration.error(ID, "every kernel call returns before the unit's deadline"));
  }

  @Override
  public boolean covers(Cause death) {
    return death instanceof Cause.Timeout;
  }

  @Override
  public Finding finding(Cause death, String happened, Duration deadline, List<Fact> details) {
    return new Finding("the unit finishes within " + deadline.toSeconds() + " s", happened,
        "an infinite loop, or a kernel far slower than the deadline: give the op a \"timeout\" in the spec if it is only slow",
        death, details, List.of());
  }
}
