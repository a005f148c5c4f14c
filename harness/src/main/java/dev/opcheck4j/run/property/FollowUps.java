package dev.opcheck4j.run.property;

import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;

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

  /** One unit of the exchange: the kernel on revert {@code revert} of input {@code input}, or {@code check}'s verdict on it. */
  private record Planned(int input, int revert, String check) {}

  private final OpSession session;
  private final List<Planned> planned;
  private final Kernels.Exchange answers;
  /** How many units answered before the death, or all of them. */
  private final int answered;
  private boolean deathTaken;

  private FollowUps(OpSession session, List<Planned> planned, Kernels.Exchange answers) {
    this.session = session;
    this.planned = planned;
    this.answers = answers;
    int n = 0;
    while (n < planned.size() && answers.done(n).isPresent()) {
      n++;
    }
    this.answered = n;
  }

  /** The units of every one of {@code inputs} in one exchange, or {@link #NONE} when there are none. */
  static FollowUps of(OpSession session, OpCalls calls, List<OpSession.FollowUp> inputs, Device device) {
    List<Planned> planned = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      for (int r = 0; r < inputs.get(i).reverts().size(); r++) {
        planned.add(new Planned(i, r, null));
        keys.add(TimeLedger.PROBES);
      }
      for (String c : inputs.get(i).checks()) {
        planned.add(new Planned(i, -1, c));
        keys.add(c);
      }
    }
    // a death in the exchange counts at once: one that would stop the op before its turn is not risked
    if (planned.size() < 2 || session.deaths() + 1 >= OpSession.MAX_DEATHS) {
      return NONE;
    }
    return new FollowUps(session, planned, calls.followUps(inputs, device, keys));
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
    for (int i = 0; i < planned.size(); i++) {
      Planned p = planned.get(i);
      if (p.input() != input || p.check() != null) {
        continue;
      }
      if (i < answered) {
        rejections.add(OpSession.rejection(answers.done(i).orElseThrow()));
      } else if (i == answered && answers.death().isPresent()) {
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
    for (int i = 0; i < planned.size(); i++) {
      Planned p = planned.get(i);
      if (p.input() == input && check.equals(p.check())) {
        if (i < answered) {
          return new OpCalls.Judged(answers.done(i).orElseThrow().verdict(), null);
        }
        if (i == answered && answers.death().isPresent()) {
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
