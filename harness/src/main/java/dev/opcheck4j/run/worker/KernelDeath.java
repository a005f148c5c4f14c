package dev.opcheck4j.run.worker;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import java.util.List;
import java.util.Optional;

/**
 * The worker died (or was killed at the deadline) while running a unit: the unit has no verdict of
 * its own, and becomes the result of the supervisor check that covers its cause.
 */
public final class KernelDeath extends Exception {
  private final transient Cause death;
  private final transient List<Fact> facts;
  private final transient List<Kernels.Done> completed;
  private final transient Optional<String> step;

  /**
   * @param death how the worker died: {@link Cause.Crash} or {@link Cause.Timeout}
   * @param message what the supervisor saw, one line
   * @param facts what is known about the death, in display order
   */
  public KernelDeath(Cause death, String message, List<Fact> facts) {
    this(death, message, facts, Optional.empty());
  }

  /** @param step the step the worker was at when it died, as it told it ({@code the meta kernel for fake.metadata}) */
  public KernelDeath(Cause death, String message, List<Fact> facts, Optional<String> step) {
    this(death, message, facts, List.of(), step);
  }

  private KernelDeath(Cause death, String message, List<Fact> facts, List<Kernels.Done> completed, Optional<String> step) {
    super(message);
    this.death = death;
    this.facts = List.copyOf(facts);
    this.completed = List.copyOf(completed);
    this.step = step;
  }

  /** The same death, after {@code completed} units of the same exchange had finished. */
  public KernelDeath after(List<Kernels.Done> completed) {
    return new KernelDeath(death, getMessage(), facts, completed, step);
  }

  /** The step the worker was at when it died, when it told one (a worker told none before its first unit). */
  public Optional<String> step() {
    return step;
  }

  /** How the worker died, by kind: a crash with its signal, or a timeout. */
  public Cause death() {
    return death;
  }

  /** What is known about the death: signal or status, native frames, last output, error file. */
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
