package dev.opcheck4j.run;

import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import java.util.List;

/**
 * The messages between the parent and a worker, one {@link Wire} line each, over a Unix-domain
 * socket of their own (a kernel writing to stdout or stderr cannot reach it).
 *
 * <p>The parent first sends an {@link Init}; the worker announces each library before loading it
 * ({@code loading}), then replies {@code ready} with a {@link WorkerInfo} (or {@code load-error}).
 * Then a {@link Request} carries one or more units, run in order: the worker announces each unit
 * ({@code begin}) before starting it and answers {@code done} with its verdict, so a death is
 * attributed to exactly the unit in flight. A unit's {@code done} and the next one's {@code begin}
 * go out in one write: a unit costs the worker one write, and the parent one wake-up.
 */
public final class Protocol {
  private Protocol() {}

  /**
   * The libraries a worker loads, with the spec files (for tolerances, skips and settings).
   *
   * @param targets one per target of the run, library paths resolved
   * @param ops the op filter of the run
   */
  public record Init(List<RunRequest.Target> targets, List<String> ops) {}

  /** What a unit asks of the worker. */
  public enum Kind {
    /** Evaluate a check: the verdict. */
    EVALUATE,
    /** Call the real kernel on the example: PASSED when it accepted it, FAILED (fact {@code raised}) when it raised. */
    ACCEPTS,
    /** A rejection check's verdict on an input the real kernel raised {@link Unit#rejected} on. */
    ON_REJECTED,
    /** Materialize the example: PASSED with its description, FAILED with why it does not fit. */
    BIND,
    /**
     * Synthesize an example from the op's schema that the cpu kernel accepts: facts {@code note}, and
     * {@code example} (the example as one {@link Wire} line) when one was found.
     */
    SYNTHESIZE,
    /**
     * Load the TorchScript model {@link Unit#model} names and keep it: PASSED with fact {@code model},
     * a {@link ModelInfo} as one {@link Wire} line (its call sites, its forward parameters, or why it did not load).
     */
    MODEL,
    /**
     * Run {@code forward} of the model the last MODEL unit loaded on {@link Model#inputs}: PASSED with fact
     * {@code forward}, a {@link ModelInfo.Forward} as one {@link Wire} line.
     */
    FORWARD
  }

  /**
   * A TorchScript model for the MODEL and FORWARD units ({@code ./opcheck model}).
   *
   * @param file the model archive
   * @param inputs forward's inputs as typed on the command line ({@code float32[16,16]}, {@code int:8}, ...)
   */
  public record Model(java.nio.file.Path file, List<String> inputs) {
    public Model {
      inputs = List.copyOf(inputs);
    }
  }

  /**
   * One unit of work.
   *
   * @param kind what to do
   * @param target index of the target (library) in {@link Init#targets()}
   * @param op qualified op name; null for a library-wide check
   * @param check check id (EVALUATE), else null
   * @param device device, or null for checks that run on none
   * @param example the example as spec data, or null
   * @param seed the run's seed
   * @param rejected what the real kernel raised on the example (ON_REJECTED), else null
   * @param spec the op's spec entry when it differs from the spec file's (synthesized examples), else null
   * @param model the model (MODEL, FORWARD), else null
   */
  public record Unit(Kind kind, int target, String op, String check, Device device, Example example, long seed,
      String rejected, OpSpec spec, Model model) {}

  /**
   * Parent to worker: the libraries to load, units to run, or the request to exit when both are null.
   *
   * @param id sequence number of the first unit (unit {@code i} is {@code id + i}), echoed by the worker
   * @param init the libraries to load (first message only)
   * @param units the units, run in order
   * @param guarded whether the first unit is a guard: when its verdict is not PASSED the rest are not run
   */
  public record Request(long id, Init init, List<Unit> units, boolean guarded) {}

  /**
   * Whether unit {@code index} of {@code count}, which gave {@code v}, is the last one of the exchange
   * to run: it is the last unit, or a guard that did not pass. Both sides of the protocol ask this.
   */
  public static boolean endsExchange(int index, int count, boolean guarded, Verdict v) {
    return index == count - 1 || guarded && index == 0 && v.outcome() != dev.opcheck4j.api.Outcome.PASSED;
  }

  /**
   * Worker to parent.
   *
   * @param id the request, or the unit of it, this answers
   * @param event {@code loading}, {@code ready}, {@code load-error}, {@code begin}, {@code done}, or
   *     {@code bye} (asked to exit, with its output flushed)
   * @param text the library being loaded, or the load error
   * @param verdict the unit's verdict ({@code done})
   * @param info what was loaded ({@code ready})
   * @param micros the unit's own time in microseconds ({@code done})
   */
  public record Reply(long id, String event, String text, Verdict verdict, WorkerInfo info, long micros) {}
}
