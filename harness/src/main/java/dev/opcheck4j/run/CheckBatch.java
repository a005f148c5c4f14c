package dev.opcheck4j.run;

import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * An op's checks on itself, its devices and its examples, in plan order, sent to its worker in as few
 * exchanges as their prerequisites allow: one exchange per run of consecutive checks none of which
 * requires a check of the same run. One exchange per check cost a round trip with the worker each
 * (about twenty per op), most of the time of the cheap ones.
 *
 * <p>Each check is decided (skipped, or a unit to run) when it is added, as one check at a time would
 * decide it then: what it reads of the others (a prerequisite's outcome) is never in its own run.
 * Results leave in plan order, each unit's started event just before its result. A death ends the
 * exchange: the checks after the one that died are taken one at a time, as they were before batching,
 * so the op's death budget and the next worker see them as one at a time would.
 */
final class CheckBatch {
  /**
   * A check on the op's {@code device} and {@code example} (null: none), and its verdict when it is
   * known without a unit (an invalid example), else null.
   */
  record Step(Check check, Device device, Example example, Verdict given) {}

  /** What the runner does with a step, as it does with one check at a time. */
  interface Road {
    /** The verdict of a step that runs no unit (its skip reason), or null when it runs one. */
    Verdict decide(Step step);

    /** The started event of the step's unit. */
    void started(Step step);

    /** A verdict to its result. */
    void emit(Step step, Verdict verdict, long micros);

    /** The death of the step's unit to its result. */
    void died(Step step, Death death, long micros);

    /** The step taken alone, one exchange of its own. */
    void alone(Step step);
  }

  private record Pending(Step step, Verdict verdict) {}

  private final OpSession units;
  private final String op;
  private final Road road;
  private final List<Pending> pending = new ArrayList<>();
  private final Set<String> checks = new HashSet<>();

  CheckBatch(OpSession units, String op, Road road) {
    this.units = units;
    this.op = op;
    this.road = road;
  }

  /** Adds {@code step}, after sending the ones before it when it requires one of them. */
  void add(Step step) {
    if (step.check().requires().stream().anyMatch(checks::contains)) {
      flush();
    }
    pending.add(new Pending(step, step.given() != null ? step.given() : road.decide(step)));
    checks.add(step.check().id());
  }

  /** Runs the units of the steps added so far in one exchange and emits every step's result in order. */
  void flush() {
    List<Pending> todo = List.copyOf(pending);
    pending.clear();
    checks.clear();
    List<OpSession.Asked> asked = todo.stream().filter(p -> p.verdict() == null)
        .map(p -> new OpSession.Asked(p.step().check().id(), p.step().device(), p.step().example())).toList();
    long t = System.nanoTime();
    Kernels.Exchange x = asked.isEmpty() ? Kernels.Exchange.none() : units.evaluate(op, asked);
    int unit = 0;
    for (int i = 0; i < todo.size(); i++) {
      Pending p = todo.get(i);
      if (p.verdict() != null) {
        road.emit(p.step(), p.verdict(), 0);
        continue;
      }
      road.started(p.step());
      Optional<Kernels.Done> done = x.done(unit++);
      if (done.isPresent()) {
        road.emit(p.step(), done.get().verdict(), done.get().micros());
        continue;
      }
      // an unguarded exchange answers every unit up to the one its worker died in
      road.died(p.step(), x.death().orElseThrow(() -> new IllegalStateException("no answer and no death")),
          Runner.micros(t));
      todo.subList(i + 1, todo.size()).forEach(rest -> road.alone(rest.step()));
      return;
    }
  }
}
