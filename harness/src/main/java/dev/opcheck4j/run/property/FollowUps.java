package dev.opcheck4j.run.property;

import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.run.link.Batch;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What looks at several inputs the kernel rejected (the blame's kernel calls, the rejection checks'
 * verdicts), sent in one exchange with the worker instead of one or two per input, then taken in the
 * order one input at a time would have asked for them. A unit that order does not reach (its check
 * failed on an earlier input) is ignored, and a death in it forgiven ({@link #settle}); what comes
 * after a death was not answered, and its caller asks the worker again.
 */
final class FollowUps implements AutoCloseable {
  /** Nothing sent: every question goes to the worker. */
  static final FollowUps NONE = new FollowUps(null, List.of(), Kernels.Exchange.none());

  /**
   * One unit of the exchange, by the ticket its answer is read through: the kernel on a revert of input
   * {@code input} (check null), or {@code check}'s verdict on it.
   */
  record Planned(int input, String check, Batch.Ticket<?> ticket) {
    /** Whose time the unit is: its check's, or the probes'. */
    String key() {
      return check == null ? TimeLedger.PROBES : check;
    }
  }

  private final OpSession session;
  /** The units in the order they ran. */
  private final List<Planned> planned;
  private final Kernels.Exchange answers;
  /** The unit the death ended the exchange in: the first without an answer; null when every one has one. */
  private final Planned unanswered;
  private boolean deathTaken;

  FollowUps(OpSession session, List<Planned> planned, Kernels.Exchange answers) {
    this.session = session;
    this.planned = planned;
    this.answers = answers;
    this.unanswered = planned.stream().filter(p -> answers.done(p.ticket()).isEmpty()).findFirst().orElse(null);
  }

  /** The units of every one of {@code inputs} in one exchange, or {@link #NONE} when there are none. */
  static FollowUps of(OpSession session, OpCalls calls, List<OpSession.FollowUp> inputs, Device device) {
    int units = inputs.stream().mapToInt(f -> f.reverts().size() + f.checks().size()).sum();
    // a death in the exchange counts at once: one that would stop the op before its turn is not risked
    if (units < 2 || session.deaths() + 1 >= OpSession.MAX_DEATHS) {
      return NONE;
    }
    return calls.followUps(inputs, device);
  }

  /**
   * The follow-ups of a batch's tries ({@code results} of {@code batch}) that the kernel rejected: the
   * blame's kernel calls while the tally still blames ({@code discarded} tries before this batch, up
   * to {@link VerdictTally#BLAME_BUDGET}), and the verdict of each of the rejection checks {@code rejecters}.
   */
  static FollowUps ofBatch(OpSession session, OpCalls calls, List<Tries.Generated> batch, List<OpCalls.Tried> results,
      List<? extends Check> rejecters, int discarded, Device device) {
    List<String> checks = rejecters.stream().map(Check::id).toList();
    List<OpSession.FollowUp> inputs = new ArrayList<>();
    for (int j = 0; j < results.size(); j++) {
      Tries.Generated g = batch.get(j);
      String why = results.get(j).rejected();
      if (why == null) {
        inputs.add(new OpSession.FollowUp(g.example(), null, List.of(), List.of()));
        continue;
      }
      discarded++;
      inputs.add(new OpSession.FollowUp(g.example(), why,
          discarded <= VerdictTally.BLAME_BUDGET ? reverts(g) : List.of(), checks));
    }
    return of(session, calls, inputs, device);
  }

  /** The verdicts of the rejection checks {@code rejecters} on domain probes the kernel rejected. */
  static FollowUps ofProbes(OpSession session, OpCalls calls, List<DomainProbing.RejectedProbe> probes,
      List<? extends Check> rejecters, Device device) {
    List<String> checks = rejecters.stream().map(Check::id).toList();
    return of(session, calls, probes.stream().map(p -> new OpSession.FollowUp(p.probe(), p.why(), List.of(), checks))
        .toList(), device);
  }

  /** Try {@code g} with each argument it changed put back as the example has it, in the order of its arguments. */
  static List<Example> reverts(Tries.Generated g) {
    return g.gen().changedArguments(g.example()).stream().map(arg -> g.gen().revert(g.example(), arg)).toList();
  }

  /**
   * The blame's kernel calls on input {@code input}: per revert in order null or what the kernel raised,
   * and the death after the last (as {@link OpCalls#probe} gives them); null when they were not sent.
   */
  OpCalls.Probed blame(int input) {
    List<String> rejections = new ArrayList<>();
    for (Planned p : planned) {
      if (p.input() != input || p.check() != null) {
        continue;
      }
      Optional<Kernels.Done> done = answers.done(p.ticket());
      if (done.isPresent()) {
        rejections.add(OpSession.rejection(done.get()));
      } else if (p == unanswered && answers.death().isPresent()) {
        deathTaken = true;
        return new OpCalls.Probed(rejections, new OpCalls.Fatal(answers.death().get(), null));
      } else {
        return null;
      }
    }
    return rejections.isEmpty() ? null : new OpCalls.Probed(rejections, null);
  }

  /** {@code check}'s verdict on input {@code input}, or the death in its place; null when it was not sent. */
  OpCalls.Judged verdict(int input, String check) {
    for (Planned p : planned) {
      if (p.input() == input && check.equals(p.check())) {
        Optional<Kernels.Done> done = answers.done(p.ticket());
        if (done.isPresent()) {
          return new OpCalls.Judged(done.get().verdict(), null);
        }
        if (p == unanswered && answers.death().isPresent()) {
          deathTaken = true;
          return new OpCalls.Judged(null, new OpCalls.Fatal(answers.death().get(), check));
        }
        return null;
      }
    }
    return null;
  }

  /** A death in a unit nobody asked for is forgiven: one input at a time, it would not have run. */
  void settle() {
    if (answers.death().isPresent() && !deathTaken) {
      session.forgive(answers.death().get());
      deathTaken = true;
    }
  }

  @Override
  public void close() {
    settle();
  }
}
