package dev.opcheck4j.run.link;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import java.util.List;
import java.util.Optional;

/**
 * How a worker died (or was killed at the deadline) during an exchange: an event of the domain, returned
 * as a value from the exchange it ended ({@link Kernels.Exchange#death()}). The unit in flight has no
 * answer of its own; the parent's op session turns the death into the result of the supervisor check
 * that covers its cause.
 *
 * @param cause how it died: {@link Cause.Crash} or {@link Cause.Timeout}
 * @param message what the supervisor saw, one line
 * @param facts what is known about the death (signal or status, native frames, last output, error
 *     file), in display order
 * @param step the step the worker was at, as it told it ({@code the meta kernel for fake.metadata});
 *     empty when it told none (before its first unit, or run in this process)
 * @param unit the id of the unit in flight, {@link #UNKNOWN} when the worker died outside any unit
 * @param offThread whether the crash was on a thread no unit runs on (a native thread: a thread pool's, or one a
 *     kernel started and left running), so that the unit in flight may not be the one that caused it
 */
public record Death(Cause cause, String message, List<Fact> facts, Optional<String> step, long unit,
    boolean offThread) {
  /** No unit was known to run. */
  public static final long UNKNOWN = -1;

  public Death {
    facts = List.copyOf(facts);
  }

  /** A death outside any known unit (while loading, or stopping). */
  public Death(Cause cause, String message, List<Fact> facts, Optional<String> step) {
    this(cause, message, facts, step, UNKNOWN);
  }

  /** A death in unit {@code unit}, on the thread that ran it (or where no error file told otherwise). */
  public Death(Cause cause, String message, List<Fact> facts, Optional<String> step, long unit) {
    this(cause, message, facts, step, unit, false);
  }

  /**
   * Whether the death uses up one of the deaths that stop an op's generation (OpSession.MAX_DEATHS), which are for
   * kernels that crash: a fault in a check's protected pages (a {@link Cause.Contract}: memory.bounds' guards,
   * memory.readonly-input's read-only pages) is how that check finds its defect, once an op, example and device (a
   * check that failed runs no more), and is not.
   */
  public boolean charged() {
    return !(cause instanceof Cause.Contract);
  }

  /** The same death, in unit {@code id}. */
  public Death in(long id) {
    return new Death(cause, message, facts, step, id, offThread);
  }
}
