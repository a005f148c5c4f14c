package dev.opcheck4j.run.property;

import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.worker.Kernels;
import dev.opcheck4j.run.worker.OpUnits;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;

/**
 * What looks at several inputs the kernel rejected (the blame's kernel calls, the rejection checks'
 * verdicts), sent in one exchange with the worker instead of one or two per input, then taken in the
 * order one input at a time would have asked for them. A unit that order does not reach (its check
 * failed on an earlier input) is ignored, and a death in it forgiven ({@link #settle}); what comes
 * after a death is not in the exchange, and its caller asks the worker again.
 */
final class FollowUps implements AutoCloseable {
  /** Nothing sent: every question goes to the worker. */
  static final FollowUps NONE = new FollowUps(null, List.of(), new OpCalls.Exchanged(List.of(), null));

  /** One unit of the exchange: the kernel on revert {@code revert} of input {@code input}, or {@code check}'s verdict on it. */
  private record Planned(int input, int revert, String check) {}

  private final OpUnits units;
  private final List<Planned> planned;
  private final OpCalls.Exchanged answers;
  private boolean deathTaken;

  private FollowUps(OpUnits units, List<Planned> planned, OpCalls.Exchanged answers) {
    this.units = units;
    this.planned = planned;
    this.answers = answers;
  }

  /** The units of every one of {@code inputs} in one exchange, or {@link #NONE} when there are none. */
  static FollowUps of(OpUnits units, OpCalls calls, List<OpUnits.FollowUp> inputs, Device device) {
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
    if (planned.size() < 2 || units.deaths() + 1 >= OpUnits.MAX_DEATHS) {
      return NONE;
    }
    return new FollowUps(units, planned, calls.followUps(inputs, device, keys));
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
      if (i < answers.done().size()) {
        rejections.add(OpUnits.rejection(answers.done().get(i)));
      } else if (i == answers.done().size() && answers.death() != null) {
        deathTaken = true;
        return new OpCalls.Probed(rejections, new Died(answers.death(), null));
      } else {
        return null;
      }
    }
    return rejections.isEmpty() ? null : new OpCalls.Probed(rejections, null);
  }

  /** {@code check}'s verdict on input {@code input}; null when it was not sent. A death in it propagates as {@link Died}. */
  Verdict verdict(int input, String check) {
    for (int i = 0; i < planned.size(); i++) {
      Planned p = planned.get(i);
      if (p.input() == input && check.equals(p.check())) {
        if (i < answers.done().size()) {
          return answers.done().get(i).verdict();
        }
        if (i == answers.done().size() && answers.death() != null) {
          deathTaken = true;
          throw new Died(answers.death(), check);
        }
        return null;
      }
    }
    return null;
  }

  /** A death in a unit nobody asked for is forgiven: one input at a time, it would not have run. */
  void settle() {
    if (answers.death() != null && !deathTaken) {
      units.forgiveDeath();
      deathTaken = true;
    }
  }

  @Override
  public void close() {
    settle();
  }
}
