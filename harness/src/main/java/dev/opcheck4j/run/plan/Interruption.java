package dev.opcheck4j.run.plan;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A request from outside (SIGINT, SIGTERM) to stop a run: the run takes no more units and starts no
 * more workers, kills the ones it has, and reports what it gathered, marked interrupted. The front end
 * that owns the process's signals requests it; the launcher reads it.
 */
public final class Interruption {
  private final AtomicReference<String> signal = new AtomicReference<>();
  private final List<Runnable> actions = new CopyOnWriteArrayList<>();

  /**
   * Stops the run for {@code signal} ({@code SIGINT}, {@code SIGTERM}).
   *
   * @return whether this was the first request (a second one means: exit at once)
   */
  public boolean request(String signal) {
    if (!this.signal.compareAndSet(null, signal)) {
      return false;
    }
    actions.forEach(Runnable::run);
    return true;
  }

  /** The signal that stopped the run, or null while none did. */
  public String signal() {
    return signal.get();
  }

  /** Whether a run is listening (a request then stops it, rather than needing the process to exit). */
  public boolean watched() {
    return !actions.isEmpty();
  }

  public boolean requested() {
    return signal.get() != null;
  }

  /** Runs {@code action} when the run is stopped (at once if it already is). */
  public void whenRequested(Runnable action) {
    actions.add(action);
    if (requested()) {
      action.run();
    }
  }

  /** Thrown where a unit or a worker would start after the run was stopped; the run ends with what it has. */
  public static final class Stopped extends RuntimeException {
    public Stopped() {
      super("the run was interrupted", null, false, false);
    }
  }
}
