package dev.opcheck4j.run.property;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.RejectionCheck;
import dev.opcheck4j.run.session.Described;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Batch;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The phase's calls to the op's worker: tries, probes, and the rejection checks' verdicts, each timed
 * in the {@link TimeLedger}. What each unit gave is its {@link Fate}: an answer, the death of the worker
 * while it ran, or nothing (it did not run).
 */
final class OpCalls {
  private final OpSession session;
  private final String op;
  private final TimeLedger ledger;

  OpCalls(OpSession session, String op, TimeLedger ledger) {
    this.session = session;
    this.op = op;
    this.ledger = ledger;
  }

  /** A kernel call on {@code input}'s example, and what became of it. */
  record Call<T>(T input, Fate<Answers.Acceptance> fate) {
    /** What the kernel raised, or null: it accepted the input, or did not answer. */
    String rejected() {
      return fate instanceof Fate.Answered<Answers.Acceptance> a ? OpSession.rejection(a.answer()) : null;
    }
  }

  /** A check asked on a try, and what became of its unit. */
  record Asked(Check check, Fate<Answers.Checked> fate) {}

  /**
   * What one input gave in one exchange: the kernel call, and the checks it guards in the order asked
   * (none of which ran when the kernel rejected the input).
   */
  record Trial<T>(T input, Fate<Answers.Acceptance> kernel, List<Asked> checks) {
    /** What the kernel raised on the input, or null: it accepted it, or did not answer. */
    String rejected() {
      return new Call<>(input, kernel).rejected();
    }

    /** The unit of this input that the worker died in, if one did. */
    Optional<Fate.Died<?>> died() {
      if (kernel instanceof Fate.Died<?> d) {
        return Optional.of(d);
      }
      for (Asked a : checks) {
        if (a.fate() instanceof Fate.Died<?> d) {
          return Optional.of(d);
        }
      }
      return Optional.empty();
    }
  }

  /** The tickets of one input's units: its kernel call, and the checks that call guards. */
  private record Sent<T>(T input, Batch.Ticket<Answers.Acceptance> kernel, List<Pending<Check, Answers.Checked>> checks) {}

  /** The ticket of {@code input}'s unit. */
  private record Pending<T, A extends Answers.Answer>(T input, Batch.Ticket<A> ticket) {}

  /** The kernel on {@code e} and, when it accepts it, each of {@code checks}: one exchange. */
  Trial<Example> tryOn(Example e, Device device, List<Check> checks) {
    return tryOn(List.of(e), x -> x, device, checks).get(0);
  }

  /**
   * The kernel on each of {@code inputs}' examples in turn and, on each it accepts, each of {@code
   * checks}: one guarded exchange. One {@link Trial} per input up to the one a death ended, which is the last.
   */
  <T> List<Trial<T>> tryOn(List<T> inputs, Function<T, Example> example, Device device, List<Check> checks) {
    long t0 = System.nanoTime();
    List<Trial<T>> tried = trials(inputs, example, device, checks);
    // whose time each answered unit was, and whose the unit in flight when it died, for the ledger
    List<TimeLedger.Spent> spent = new ArrayList<>();
    String inFlight = null;
    for (Trial<T> trial : tried) {
      inFlight = account(trial.kernel(), TimeLedger.PROBES, spent);
      for (Asked a : trial.checks()) {
        inFlight = inFlight != null ? inFlight : account(a.fate(), a.check().id(), spent);
      }
    }
    ledger.account(spent, inFlight, t0);
    return tried;
  }

  /** {@link #tryOn(List, Function, Device, List)}, untimed. */
  private <T> List<Trial<T>> trials(List<T> inputs, Function<T, Example> example, Device device, List<Check> checks) {
    Batch batch = Batch.guarded();
    List<Sent<T>> sent = new ArrayList<>();
    for (T input : inputs) {
      // the kernel call and its checks share one On: the input goes over the wire once
      Protocol.On on = session.on(op, device, example.apply(input));
      Batch.Ticket<Answers.Acceptance> kernel = session.accepts(batch, on);
      sent.add(new Sent<>(input, kernel, checks.stream().map(c -> new Pending<>(c,
          session.evaluate(batch, c.id(), on))).toList()));
    }
    Kernels.Exchange x = session.run(batch);
    List<Trial<T>> tried = new ArrayList<>();
    for (Sent<T> s : sent) {
      Fate<Answers.Acceptance> kernel = x.fate(s.kernel());
      if (kernel instanceof Fate.NotRun) {
        break; // a death in an earlier input ended the exchange
      }
      Trial<T> trial = new Trial<>(s.input(), kernel,
          s.checks().stream().map(c -> new Asked(c.input(), x.fate(c.ticket()))).toList());
      tried.add(trial);
      if (trial.died().isPresent()) {
        break; // the death ended the exchange in this input
      }
    }
    return tried;
  }

  /** Adds the time of a unit that answered to {@code spent}; {@code key} when the worker died in it, else null. */
  private static String account(Fate<?> fate, String key, List<TimeLedger.Spent> spent) {
    if (fate instanceof Fate.Answered<?> a) {
      spent.add(new TimeLedger.Spent(key, a.micros()));
    }
    return fate instanceof Fate.Died<?> ? key : null;
  }

  /** The kernel on each of {@code inputs}' examples, in one exchange: per input in order, what its call gave. */
  <T> List<Call<T>> probe(List<T> inputs, Function<T, Example> example, Device device) {
    long t = System.nanoTime();
    Batch batch = new Batch();
    List<Pending<T, Answers.Acceptance>> sent = inputs.stream()
        .map(i -> new Pending<>(i, session.accepts(batch, op, device, example.apply(i)))).toList();
    Kernels.Exchange x = session.run(batch);
    List<TimeLedger.Spent> spent = new ArrayList<>();
    List<Call<T>> calls = new ArrayList<>();
    String inFlight = null;
    for (Pending<T, Answers.Acceptance> p : sent) {
      Fate<Answers.Acceptance> fate = x.fate(p.ticket());
      calls.add(new Call<>(p.input(), fate));
      inFlight = inFlight != null ? inFlight : account(fate, TimeLedger.PROBES, spent);
    }
    ledger.account(spent, inFlight, t);
    return calls;
  }

  /**
   * The units of each of {@code inputs} in turn, in one exchange, unguarded: the kernel on each of its
   * reverts, then each rejection check's verdict on it. Each answered unit's time goes to its check, a
   * kernel call's to the probes.
   */
  <T> FollowUps<T> followUps(List<FollowUps.Input<T>> inputs, Device device) {
    long t = System.nanoTime();
    Batch batch = new Batch();
    List<FollowUps.Planned<T>> planned = new ArrayList<>();
    for (FollowUps.Input<T> f : inputs) {
      for (FollowUps.Revert revert : f.reverts()) {
        planned.add(new FollowUps.Planned.OnRevert<>(f.of(), revert, session.accepts(batch, op, device, revert.example())));
      }
      for (String c : f.checks()) {
        planned.add(new FollowUps.Planned.OnCheck<>(f.of(), c,
            session.onRejected(batch, c, op, device, f.rejected(), f.why())));
      }
    }
    Kernels.Exchange x = session.run(batch);
    List<TimeLedger.Spent> spent = new ArrayList<>();
    String inFlight = null;
    for (FollowUps.Planned<T> p : planned) {
      Fate<?> fate = x.fate(p.ticket());
      if (!(fate instanceof Fate.Answered)) {
        inFlight = account(fate, p.key(), spent);
        break;
      }
      account(fate, p.key(), spent);
    }
    ledger.account(spent, inFlight, t);
    return new FollowUps<>(session, planned, x);
  }

  /** Whether the op has used up its deaths ({@link OpSession#stopped}): nothing more of it runs. */
  boolean stopped() {
    return session.stopped().isPresent();
  }

  /**
   * A value check's verdict on {@code x}: its unit's fate, which did not run when the kernel rejected
   * {@code x} (nothing to judge), or the death in the kernel call before it.
   */
  Fate<Answers.Checked> judge(Check c, Example x, Device device) {
    Trial<Example> tried = tryOn(x, device, List.of(c));
    return tried.kernel() instanceof Fate.Died<Answers.Acceptance> d ? new Fate.Died<>(d.death(), d.unit())
        : tried.checks().get(0).fate();
  }

  /**
   * A rejection check's verdict on {@code x}: its unit's fate, which does not run when the kernel
   * accepts {@code x}, or the death in the kernel call before it.
   */
  Fate<Answers.Checked> judgeRejection(RejectionCheck r, Example x, Device device) {
    long t = System.nanoTime();
    Batch batch = new Batch();
    Batch.Ticket<Answers.Acceptance> call = session.accepts(batch, op, device, x);
    Fate<Answers.Acceptance> kernel = session.run(batch).fate(call);
    ledger.since(TimeLedger.PROBES, t);
    if (kernel instanceof Fate.Died<Answers.Acceptance> d) {
      return new Fate.Died<>(d.death(), d.unit());
    }
    String why = new Call<>(x, kernel).rejected();
    return why == null ? new Fate.NotRun<>() : onRejected(r, x, device, why);
  }

  /** {@code r}'s verdict on {@code e}, which the kernel rejected with {@code why}. */
  Fate<Answers.Checked> onRejected(RejectionCheck r, Example e, Device device, String why) {
    long t = System.nanoTime();
    Batch batch = new Batch();
    Batch.Ticket<Answers.Checked> unit = session.onRejected(batch, r.id(), op, device, e, why);
    Kernels.Exchange x = session.run(batch);
    ledger.since(r.id(), t);
    return x.fate(unit);
  }

  /**
   * How the kernel dies on {@code e} with {@code checks} after it, or null when it does not (untimed:
   * only the shrink of a death asks).
   */
  Cause death(Example e, Device device, List<Check> checks) {
    return trials(List.of(e), x -> x, device, checks).get(0).died().map(d -> d.death().cause()).orElse(null);
  }

  /** {@code e}'s inputs as text, or why it cannot be shown. */
  String describe(Example e, Device device) {
    Described d = session.describe(op, device, e);
    return d instanceof Described.Killed k ? "(materializing it killed the worker: " + k.death().message() + ")"
        : d instanceof Described.Unfit u ? "(cannot be materialized: " + u.why() + ")"
        : ((Described.Shown) d).text();
  }
}
