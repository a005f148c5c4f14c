package dev.opcheck4j.run.property;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.RejectionCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.run.session.Trials;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Batch;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The phase's calls to the op's worker: tries, probes, and the rejection checks' verdicts, each timed
 * in the {@link TimeLedger}. A call that kills the worker gives its {@link Fatal} as a value.
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

  /**
   * A call of the phase that killed the worker: the death, and the check whose call it was (null: the
   * kernel call of a try or probe).
   */
  record Fatal(Death death, String check) {}

  /**
   * What one input gave in one exchange with the worker.
   *
   * @param reached whether the kernel call finished (false: it killed the worker, {@code died} says how)
   * @param rejected what the kernel raised on the input, null when it accepted it
   * @param verdicts the verdicts of the checks run on it, in order (none when it was rejected)
   * @param died the death that ended the exchange, or null
   */
  record Tried(boolean reached, String rejected, List<Verdict> verdicts, Fatal died) {}

  /** Kernel calls on several inputs in one exchange: per input finished, null or what it raised; and the death, or null. */
  record Probed(List<String> rejections, Fatal died) {}

  /** A check's verdict on an input, or the death that took its place (one is null). */
  record Judged(Verdict verdict, Fatal died) {}

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
    Trials trials = session.tryOn(op, device, inputs, checks.stream().map(Check::id).toList());
    Death death = trials.death().orElse(null);
    List<Tried> tried = new ArrayList<>();
    // whose time each answered unit was, and whose the unit in flight when it died, for the ledger
    List<TimeLedger.Spent> spent = new ArrayList<>();
    String inFlight = null;
    for (Trials.Trial trial : trials.trials()) {
      if (trial.kernel() == null) {
        inFlight = TimeLedger.PROBES; // it died in this input's kernel call
        tried.add(new Tried(false, null, List.of(), new Fatal(death, null)));
        break;
      }
      spent.add(new TimeLedger.Spent(TimeLedger.PROBES, trial.kernel().micros()));
      String rejected = OpSession.rejection(trial.kernel());
      if (rejected != null) {
        tried.add(new Tried(true, rejected, List.of(), null));
        continue;
      }
      List<Verdict> verdicts = new ArrayList<>();
      for (Kernels.Done d : trial.checks()) {
        spent.add(new TimeLedger.Spent(checks.get(verdicts.size()).id(), d.micros()));
        verdicts.add(d.verdict());
      }
      if (verdicts.size() < checks.size()) {
        // it died in the check after the last verdict
        inFlight = checks.get(verdicts.size()).id();
        tried.add(new Tried(true, null, verdicts, new Fatal(death, inFlight)));
        break;
      }
      tried.add(new Tried(true, null, verdicts, null));
    }
    ledger.account(spent, inFlight, t0);
    return tried;
  }

  /** The kernel on each of {@code inputs}, in one exchange. */
  Probed probe(List<Example> inputs, Device device) {
    long t = System.nanoTime();
    Batch batch = new Batch();
    List<Batch.Ticket<Answers.Acceptance>> calls = inputs.stream().map(e -> session.accepts(batch, op, device, e)).toList();
    Kernels.Exchange x = session.run(batch);
    List<TimeLedger.Spent> spent = new ArrayList<>();
    List<String> rejections = new ArrayList<>();
    for (Batch.Ticket<Answers.Acceptance> call : calls) {
      Optional<Kernels.Done> d = x.done(call);
      if (d.isEmpty()) {
        break; // the death ended the exchange in this call
      }
      spent.add(new TimeLedger.Spent(TimeLedger.PROBES, d.get().micros()));
      rejections.add(OpSession.rejection(d.get()));
    }
    Fatal died = x.death().map(d -> new Fatal(d, null)).orElse(null);
    ledger.account(spent, died == null ? null : TimeLedger.PROBES, t);
    return new Probed(rejections, died);
  }

  /**
   * The units of each of {@code inputs} in turn, in one exchange, unguarded: the kernel on each of its
   * reverts, then each rejection check's verdict on it. Each answered unit's time goes to its check, a
   * kernel call's to the probes.
   */
  FollowUps followUps(List<OpSession.FollowUp> inputs, Device device) {
    long t = System.nanoTime();
    Batch batch = new Batch();
    List<FollowUps.Planned> planned = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      OpSession.FollowUp f = inputs.get(i);
      for (Example revert : f.reverts()) {
        planned.add(new FollowUps.Planned(i, null, session.accepts(batch, op, device, revert)));
      }
      for (String c : f.checks()) {
        planned.add(new FollowUps.Planned(i, c, session.onRejected(batch, c, op, device, f.rejected(), f.why())));
      }
    }
    Kernels.Exchange x = session.run(batch);
    List<TimeLedger.Spent> spent = new ArrayList<>();
    String inFlight = null;
    for (FollowUps.Planned p : planned) {
      Optional<Kernels.Done> d = x.done(p.ticket());
      if (d.isEmpty()) {
        inFlight = x.death().isPresent() ? p.key() : null;
        break;
      }
      spent.add(new TimeLedger.Spent(p.key(), d.get().micros()));
    }
    ledger.account(spent, inFlight, t);
    return new FollowUps(session, planned, x);
  }

  /** Whether the op has used up its deaths ({@link OpSession#stopped}): nothing more of it runs. */
  boolean stopped() {
    return session.stopped().isPresent();
  }

  /** A value check's verdict on {@code x}: PASSED when the kernel rejects it (nothing to judge). */
  Judged judge(Check c, Example x, Device device) {
    Tried tried = tryOn(x, device, List.of(c));
    if (tried.died() != null) {
      return new Judged(null, tried.died());
    }
    return new Judged(tried.rejected() != null ? Verdict.passed() : tried.verdicts().get(0), null);
  }

  /** A rejection check's verdict on {@code x}: PASSED when the kernel accepts it. */
  Judged judgeRejection(RejectionCheck r, Example x, Device device) {
    long t = System.nanoTime();
    Batch batch = new Batch();
    Batch.Ticket<Answers.Acceptance> call = session.accepts(batch, op, device, x);
    Kernels.Exchange again = session.run(batch);
    ledger.since(TimeLedger.PROBES, t);
    if (again.death().isPresent()) {
      return new Judged(null, new Fatal(again.death().get(), null));
    }
    String why = OpSession.rejection(again.done(call).orElseThrow());
    return why == null ? new Judged(Verdict.passed(), null) : onRejected(r, x, device, why);
  }

  /** {@code r}'s verdict on {@code e}, which the kernel rejected with {@code why}. */
  Judged onRejected(RejectionCheck r, Example e, Device device, String why) {
    long t = System.nanoTime();
    Batch batch = new Batch();
    Batch.Ticket<Answers.Checked> unit = session.onRejected(batch, r.id(), op, device, e, why);
    Kernels.Exchange x = session.run(batch);
    ledger.since(r.id(), t);
    return x.death().isPresent() ? new Judged(null, new Fatal(x.death().get(), r.id()))
        : new Judged(x.answer(unit).verdict(), null);
  }

  /**
   * How the kernel dies on {@code e} with {@code checks} after it, or null when it does not (untimed:
   * only the shrink of a death asks).
   */
  Cause death(Example e, Device device, List<String> checks) {
    return session.tryOn(op, device, List.of(e), checks).death().map(Death::cause).orElse(null);
  }

  /** {@code e}'s inputs as text, or why it cannot be shown. */
  String describe(Example e, Device device) {
    OpSession.Described d = session.describe(op, device, e);
    return d.death() != null ? "(materializing it killed the worker: " + d.death().message() + ")"
        : d.invalid() != null ? "(cannot be materialized: " + d.invalid() + ")" : d.text();
  }
}
