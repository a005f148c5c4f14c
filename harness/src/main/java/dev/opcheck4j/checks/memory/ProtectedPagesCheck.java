package dev.opcheck4j.checks.memory;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.SupervisorCheck;
import dev.opcheck4j.checks.Verdict;
import java.util.Optional;

/**
 * A memory check that gives the kernel its tensor arguments in pages it protects ({@link
 * GuardedMemory}), so that a forbidden access kills the worker: it runs per example, where the
 * foreign-function API can map pages, and it is also the supervisor of the deaths whose faulting
 * address lies in its pages (a cause with its rule).
 */
abstract class ProtectedPagesCheck extends HostMemoryCheck implements SupervisorCheck {
  private final String rule;

  /** {@code rule}: the {@link Cause.Contract#rule()} of a fault in this check's pages ({@link GuardRanges#cause}). */
  ProtectedPagesCheck(Declaration declared, String rule) {
    super(declared);
    this.rule = rule;
  }

  @Override
  public CheckInfo.Scope scope() {
    return CheckInfo.Scope.EXAMPLE;
  }

  @Override
  Optional<String> unavailable() {
    return GuardedMemory.unavailable();
  }

  @Override
  public Optional<Cause> fault(long address, String step) {
    return GuardRanges.in(step).hit(address);
  }

  @Override
  public String shown(String step) {
    return GuardRanges.shown(step);
  }

  @Override
  public boolean covers(Cause death) {
    return death instanceof Cause.Contract c && c.rule().equals(rule);
  }

  /** Skipped: the kernel raised on its arguments copied into {@code memory} (same sizes and strides). */
  static Verdict raised(String memory, OpCall.KernelError e) {
    return Verdict.skipped("the kernel raised on its arguments copied into " + memory + " (same sizes and strides): "
        + e.getMessage());
  }
}
