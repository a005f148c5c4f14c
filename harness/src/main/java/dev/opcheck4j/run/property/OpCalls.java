package dev.opcheck4j.run.property;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.RejectionCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.worker.KernelDeath;
import dev.opcheck4j.run.worker.Kernels;
import dev.opcheck4j.run.worker.OpUnits;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The phase's calls to the op's worker: tries, probes, and the rejection checks' verdicts, each timed
 * in the {@link TimeLedger}. A call that kills the worker comes back as {@link Died}.
 */
final class OpCalls {
  private final OpUnits units;
  private final String op;
  private final TimeLedger ledger;

  OpCalls(OpUnits units, String op, TimeLedger ledger) {
    this.units = units;
    this.op = op;
    this.ledger = ledger;
  }

  /**
   * What one input gave in one exchange with the worker.
   *
   * @param reached whether the kernel call finished (false: it killed the worker, {@code died} says how)
   * @param rejected what the kernel raised on the input, null when it accepted it
   * @param verdicts the verdicts of the checks run on it, in order (none when it was rejected)
   * @param died the death that ended the exchange, or null
   */
  record Tried(boolean reached, String rejected, List<Verdict> verdicts, Died died) {}

  /** Kernel calls on several inputs in one exchange: per input finished, null or what it raised; and the death, or null. */
  record Probed(List<String> rejections, Died died) {}

  /** The kernel on {@code e} and, when it accepts it, each of {@code checks}: one exchange. */
  Tried tryOn(Example e, Device device, List<Check> checks) {
    return tryOn(List.of(e), device, checks).get(0);
  }

  /**
   * The kernel on each of {@code inputs} in turn and, on each it accepts, each of {@code checks}: one
   * exchange. One {@link Tried} per input up to the one a death ended, which is the last.
   */
  List<Tried> tryOn(List<Example> inputs, Device device, List<Check> checks) {
    long t0 = System.nanoTime();
    List<Kernels.Done> done;
    KernelDeath death = null;
    try {
      done = units.tryOn(op, device, inputs, checks.stream().map(Check::id).toList());
    } catch (KernelDeath d) {
      done = d.completed();
      death = d;
    }
    List<Tried> tried = new ArrayList<>();
    // whose time each unit run was (and the one in flight when it died), for the ledger
    List<String> keys = new ArrayList<>();
    int k = 0;
    for (int i = 0; i < inputs.size() && (k < done.size() || death != null); i++) {
      keys.add(TimeLedger.PROBES);
      if (k == done.size()) {
        // it died in this input's kernel call
        tried.add(new Tried(false, null, List.of(), new Died(death, null)));
        break;
      }
      String rejected = OpUnits.rejection(done.get(k++));
      if (rejected != null) {
        tried.add(new Tried(true, rejected, List.of(), null));
        continue;
      }
      List<Verdict> verdicts = new ArrayList<>();
      while (verdicts.size() < checks.size() && k < done.size()) {
        keys.add(checks.get(verdicts.size()).id());
        verdicts.add(done.get(k++).verdict());
      }
      if (verdicts.size() < checks.size()) {
        // it died in the check after the last verdict
        String check = checks.get(verdicts.size()).id();
        keys.add(check);
        tried.add(new Tried(true, null, verdicts, new Died(death, check)));
        break;
      }
      tried.add(new Tried(true, null, verdicts, null));
    }
    ledger.account(keys, done, t0, death != null);
    return tried;
  }

  /** The kernel on each of {@code inputs}, in one exchange. */
  Probed probe(List<Example> inputs, Device device) {
    long t = System.nanoTime();
    List<Kernels.Done> done;
    Died died = null;
    try {
      done = units.accepts(op, device, inputs);
    } catch (KernelDeath d) {
      done = d.completed();
      died = new Died(d, null);
    }
    ledger.account(Collections.nCopies(inputs.size(), TimeLedger.PROBES), done, t, died != null);
    List<String> rejections = new ArrayList<>();
    done.forEach(x -> rejections.add(OpUnits.rejection(x)));
    return new Probed(rejections, died);
  }

  /** The answers of an exchange, up to the death that ended it (null: none). */
  record Exchanged(List<Kernels.Done> done, KernelDeath death) {}

  /** {@link OpUnits#followUps} of {@code inputs}, in one exchange; each unit's time goes to its key in {@code keys}. */
  Exchanged followUps(List<OpUnits.FollowUp> inputs, Device device, List<String> keys) {
    long t = System.nanoTime();
    List<Kernels.Done> done;
    KernelDeath death = null;
    try {
      done = units.followUps(op, device, inputs);
    } catch (KernelDeath d) {
      done = d.completed();
      death = d;
    }
    ledger.account(keys, done, t, death != null);
    return new Exchanged(done, death);
  }

  /** Whether the op has used up its deaths ({@link OpUnits#stopped}): nothing more of it runs. */
  boolean stopped() {
    return units.stopped().isPresent();
  }

  /** A value check's verdict on {@code x}: PASSED when the kernel rejects it (nothing to judge). A death propagates as {@link Died}. */
  Verdict judge(Check c, Example x, Device device) {
    Tried tried = tryOn(x, device, List.of(c));
    if (tried.died() != null) {
      throw tried.died();
    }
    return tried.rejected() != null ? Verdict.passed() : tried.verdicts().get(0);
  }

  /** A rejection check's verdict on {@code x}: PASSED when the kernel accepts it. A death propagates as {@link Died}. */
  Verdict judgeRejection(RejectionCheck r, Example x, Device device) {
    String again = rejection(x, device);
    return again == null ? Verdict.passed() : onRejected(r, x, device, again);
  }

  /** Null when the real kernel runs on {@code e}; else the first line of what it raised. A death propagates as {@link Died}. */
  private String rejection(Example e, Device device) {
    long t = System.nanoTime();
    try {
      return units.rejection(op, device, e);
    } catch (KernelDeath d) {
      throw new Died(d, null);
    } finally {
      ledger.since(TimeLedger.PROBES, t);
    }
  }

  /** {@code r}'s verdict on {@code e}, which the kernel rejected with {@code why}. A death propagates as {@link Died}. */
  Verdict onRejected(RejectionCheck r, Example e, Device device, String why) {
    long t = System.nanoTime();
    try {
      return units.onRejected(r.id(), op, device, e, why);
    } catch (KernelDeath d) {
      throw new Died(d, r.id());
    } finally {
      ledger.since(r.id(), t);
    }
  }

  /**
   * How the kernel dies on {@code e} with {@code checks} after it, or null when it does not (untimed:
   * only the shrink of a death asks).
   */
  Cause death(Example e, Device device, List<String> checks) {
    try {
      units.tryOn(op, device, e, checks);
      return null;
    } catch (KernelDeath again) {
      return again.death();
    }
  }

  /** {@code e}'s inputs as text, or why it cannot be shown. */
  String describe(Example e, Device device) {
    try {
      return units.describe(op, device, e);
    } catch (OpUnits.InvalidExample ex) {
      return "(cannot be materialized: " + ex.getMessage() + ")";
    } catch (KernelDeath ex) {
      return "(materializing it killed the worker: " + ex.getMessage() + ")";
    }
  }
}
