package dev.opcheck4j.run.worker;

import dev.opcheck4j.checks.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Where the parent's units run: a supervised worker process, or (for measurement) this process. */
public interface Kernels extends AutoCloseable {
  /**
   * A unit's answer and the time the unit itself took where it ran.
   *
   * @param micros the unit's own time in microseconds, without the exchange with the parent
   */
  public record Done(Protocol.Answer answer, long micros) {
    /** The verdict of a check's unit ({@link Protocol.Evaluate}, {@link Protocol.OnRejected}). */
    public Verdict verdict() {
      if (answer instanceof Protocol.Checked c) {
        return c.verdict();
      }
      throw new IllegalStateException("not a check's answer: " + answer);
    }
  }

  /**
   * Runs {@code units} in order in one exchange (generated inputs' kernel calls and the checks on
   * them: one round trip instead of one per unit), each unit within {@code deadline}. With {@code
   * guarded}, each {@link Protocol.Accepts} unit guards the units after it up to the next one: when
   * the kernel does not accept its example they are not run ({@link Protocol#nextUnit}).
   *
   * @param opens the spec entries the units name: each is sent to a worker once, with the first exchange that needs it
   * @return the answers of the units run, in order
   * @throws KernelDeath when the process running them died or missed the deadline on a unit; its
   *     {@link KernelDeath#completed()} holds the units that finished before it
   */
  public List<Done> run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline)
      throws KernelDeath;

  /**
   * Runs one unit and returns its answer.
   *
   * @throws KernelDeath when the process running it died or missed {@code deadline}
   */
  default <A extends Protocol.Answer> A run(Protocol.Unit<A> unit, Duration deadline) throws KernelDeath {
    return run(null, unit, deadline);
  }

  /**
   * Runs one unit that names the spec entry {@code open} (null: none) and returns its answer.
   *
   * @throws KernelDeath when the process running it died or missed {@code deadline}
   */
  default <A extends Protocol.Answer> A run(Protocol.OpenOp open, Protocol.Unit<A> unit, Duration deadline)
      throws KernelDeath {
    List<Protocol.OpenOp> opens = open == null ? List.of() : List.of(open);
    return unit.answers().cast(run(opens, List.of(unit), false, deadline).get(0).answer());
  }

  @Override
  void close();

  /** One unit run in this process. */
  public interface Local {
    Protocol.Answer run(Protocol.Unit<?> unit) throws KernelDeath;
  }

  /** {@link #run(List, boolean, Duration)} for kernels in this process: each unit in turn, timed here. */
  public static List<Done> inTurn(List<Protocol.Unit<?>> units, boolean guarded, Local local) throws KernelDeath {
    List<Done> done = new ArrayList<>();
    int i = 0;
    while (i < units.size()) {
      long t0 = System.nanoTime();
      Protocol.Answer a;
      try {
        a = local.run(units.get(i));
      } catch (KernelDeath d) {
        throw d.after(done);
      }
      done.add(new Done(a, (System.nanoTime() - t0) / 1_000));
      i = Protocol.nextUnit(i, units, guarded, a);
    }
    return done;
  }
}
