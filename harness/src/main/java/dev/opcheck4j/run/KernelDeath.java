package dev.opcheck4j.run;

import dev.opcheck4j.api.Fact;
import java.util.List;

/**
 * The worker died (or was killed at the deadline) while running a unit: the unit has no verdict of
 * its own, and becomes a {@code kernel.crash} or {@code kernel.timeout} result.
 */
public final class KernelDeath extends Exception {
  /** Check id of the result it becomes. */
  public static final String CRASH = dev.opcheck4j.checks.kernel.KernelCrashCheck.ID;
  public static final String TIMEOUT = dev.opcheck4j.checks.kernel.KernelTimeoutCheck.ID;

  private final String check;
  private final transient List<Fact> facts;
  private final transient List<Kernels.Done> completed;

  KernelDeath(String check, String cause, List<Fact> facts) {
    this(check, cause, facts, List.of());
  }

  private KernelDeath(String check, String cause, List<Fact> facts, List<Kernels.Done> completed) {
    super(cause);
    this.check = check;
    this.facts = List.copyOf(facts);
    this.completed = List.copyOf(completed);
  }

  /** The same death, after {@code completed} units of the same exchange had finished. */
  KernelDeath after(List<Kernels.Done> completed) {
    return new KernelDeath(check, getMessage(), facts, completed);
  }

  /** {@link #CRASH} or {@link #TIMEOUT}. */
  public String check() {
    return check;
  }

  /** What is known about the death: cause, signal or status, native frames, last output, error file. */
  public List<Fact> facts() {
    return facts;
  }

  /**
   * The units of the same exchange that finished before the one in flight, in order: the death
   * belongs to unit number {@code completed().size()}.
   */
  public List<Kernels.Done> completed() {
    return completed;
  }
}
