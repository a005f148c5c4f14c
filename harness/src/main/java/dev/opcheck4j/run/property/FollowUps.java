package dev.opcheck4j.run.property;

import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Batch;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;

/**
 * What looks at several inputs the kernel rejected (the blame's kernel calls, the rejection checks'
 * verdicts), sent in one exchange with the worker instead of one or two per input, then taken in the
 * order one input at a time would have asked for them, each by the input it is about ({@code T}: a try,
 * a probe). A unit that order does not reach (its check failed on an earlier input) is ignored, and a
 * death in it forgiven ({@link #settle}); a unit after a death did not run, and its caller asks the
 * worker again.
 */
final class FollowUps<T> implements AutoCloseable {
  /**
   * An input the real kernel raised {@code why} on, to look at: the kernel on each of {@code reverts}
   * (the input with one argument put back), then each of the rejection {@code checks} on it.
   *
   * @param of what the input is about, which its units are taken by
   */
  record Input<T>(T of, Example rejected, String why, List<Revert> reverts, List<String> checks) {}

  /** The input with {@code argument}, which generation changed, put back as the example has it. */
  record Revert(String argument, Example example) {}

  /** One unit of the exchange about input {@code of()}, by the ticket its fate is read through. */
  sealed interface Planned<T> permits Planned.OnRevert, Planned.OnCheck {
    T of();

    Batch.Ticket<?> ticket();

    /** Whose time the unit is: its check's, or the probes'. */
    String key();

    /** The kernel on {@code revert} of the input. */
    record OnRevert<T>(T of, Revert revert, Batch.Ticket<Answers.Acceptance> ticket) implements Planned<T> {
      @Override
      public String key() {
        return TimeLedger.PROBES;
      }
    }

    /** A rejection check's verdict on the input. */
    record OnCheck<T>(T of, String check, Batch.Ticket<Answers.Checked> ticket) implements Planned<T> {
      @Override
      public String key() {
        return check;
      }
    }
  }

  private final OpSession session;
  /** The units in the order they ran. */
  private final List<Planned<T>> planned;
  private final Kernels.Exchange answers;
  private boolean deathTaken;

  FollowUps(OpSession session, List<Planned<T>> planned, Kernels.Exchange answers) {
    this.session = session;
    this.planned = planned;
    this.answers = answers;
  }

  /** Nothing sent: every question goes to the worker. */
  static <T> FollowUps<T> none() {
    return new FollowUps<>(null, List.of(), Kernels.Exchange.none());
  }

  /** The units of every one of {@code inputs} in one exchange, or {@link #none} when there are none. */
  static <T> FollowUps<T> of(OpSession session, OpCalls calls, List<Input<T>> inputs, Device device) {
    int units = inputs.stream().mapToInt(f -> f.reverts().size() + f.checks().size()).sum();
    // a death in the exchange counts at once: one that would stop the op before its turn is not risked
    if (units < 2 || session.deaths() + 1 >= OpSession.MAX_DEATHS) {
      return none();
    }
    return calls.followUps(inputs, device);
  }

  /**
   * The follow-ups of a batch's tries ({@code results}) that the kernel rejected: the blame's kernel
   * calls while the tally still blames ({@code discarded} tries before this batch, up to {@link
   * VerdictTally#BLAME_BUDGET}), and the verdict of each of the rejection checks {@code rejecters}.
   */
  static FollowUps<Tries.Generated> ofBatch(OpSession session, OpCalls calls, List<OpCalls.Trial<Tries.Generated>> results,
      List<? extends Check> rejecters, int discarded, Device device) {
    List<String> checks = rejecters.stream().map(Check::id).toList();
    List<Input<Tries.Generated>> inputs = new ArrayList<>();
    for (OpCalls.Trial<Tries.Generated> r : results) {
      Tries.Generated g = r.input();
      String why = r.rejected();
      if (why == null) {
        continue;
      }
      discarded++;
      inputs.add(new Input<>(g, g.example(), why, discarded <= VerdictTally.BLAME_BUDGET ? reverts(g) : List.of(), checks));
    }
    return of(session, calls, inputs, device);
  }

  /** The verdicts of the rejection checks {@code rejecters} on domain probes the kernel rejected. */
  static FollowUps<DomainProbing.RejectedProbe> ofProbes(OpSession session, OpCalls calls,
      List<DomainProbing.RejectedProbe> probes, List<? extends Check> rejecters, Device device) {
    List<String> checks = rejecters.stream().map(Check::id).toList();
    return of(session, calls, probes.stream().map(p -> new Input<>(p, p.probe(), p.why(), List.<Revert>of(), checks))
        .toList(), device);
  }

  /** Try {@code g} with each argument it changed put back as the example has it, in the order of its arguments. */
  static List<Revert> reverts(Tries.Generated g) {
    return g.gen().changedArguments(g.example()).stream()
        .map(arg -> new Revert(arg, g.gen().revert(g.example(), arg))).toList();
  }

  /**
   * The blame's kernel calls on input {@code of}: per revert in order what it gave, up to the death
   * (as {@link OpCalls#probe} gives them); null when they were not sent, or a death before them ended
   * the exchange.
   */
  List<OpCalls.Call<Revert>> blame(T of) {
    List<OpCalls.Call<Revert>> calls = new ArrayList<>();
    for (Planned<T> p : planned) {
      // by identity: two tries may be equal inputs, each with its own units
      if (p.of() != of || !(p instanceof Planned.OnRevert<T> r)) {
        continue;
      }
      Fate<Answers.Acceptance> fate = answers.fate(r.ticket());
      if (fate instanceof Fate.NotRun) {
        return null;
      }
      calls.add(new OpCalls.Call<>(r.revert(), fate));
      if (fate instanceof Fate.Died) {
        deathTaken = true;
        return calls;
      }
    }
    return calls.isEmpty() ? null : calls;
  }

  /** {@code check}'s verdict on input {@code of}, or the death in its place; null when it was not sent, or did not run. */
  Fate<Answers.Checked> verdict(T of, String check) {
    for (Planned<T> p : planned) {
      if (p.of() == of && p instanceof Planned.OnCheck<T> c && check.equals(c.check())) {
        Fate<Answers.Checked> fate = answers.fate(c.ticket());
        if (fate instanceof Fate.Died) {
          deathTaken = true;
        }
        return fate instanceof Fate.NotRun ? null : fate;
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
