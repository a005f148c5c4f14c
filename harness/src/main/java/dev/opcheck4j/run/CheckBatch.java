package dev.opcheck4j.run;

import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Batch;
import dev.opcheck4j.run.link.Kernels;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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
  /** One check run as the batch drives it: {@link CheckRun}, or a test's recorder. */
  interface Task {
    Check check();

    /** Why it runs no unit, decided when it was planned; null when it runs one. */
    Verdict skip();

    /** What it asks of the worker. */
    OpSession.Asked asked();

    /** Its unit starts. */
    void started();

    /** Its verdict, to its result. */
    void finished(Verdict verdict, long micros);

    /** The death of its unit, to its result. */
    void died(Death death, long micros);

    /** Taken alone, in an exchange of its own. */
    void alone();
  }

  private final OpSession session;
  private final String op;
  private final List<Task> pending = new ArrayList<>();
  private final Set<String> checks = new HashSet<>();

  CheckBatch(OpSession session, String op) {
    this.session = session;
    this.op = op;
  }

  /** Adds {@code task}, after sending the ones before it when it requires one of them. */
  void add(java.util.function.Supplier<? extends Task> planned, Check check) {
    if (check.requires().stream().anyMatch(checks::contains)) {
      flush();
    }
    pending.add(planned.get());
    checks.add(check.id());
  }

  /** Runs the units of the tasks added so far in one exchange and finishes every task in order. */
  void flush() {
    List<Task> todo = List.copyOf(pending);
    pending.clear();
    checks.clear();
    Batch batch = new Batch();
    Map<Task, Batch.Ticket<Answers.Checked>> tickets = new IdentityHashMap<>();
    todo.stream().filter(p -> p.skip() == null).forEach(p -> tickets.put(p, session.evaluate(batch, op, p.asked())));
    long t = System.nanoTime();
    Kernels.Exchange x = session.run(batch);
    for (int i = 0; i < todo.size(); i++) {
      Task p = todo.get(i);
      if (p.skip() != null) {
        p.finished(p.skip(), 0);
        continue;
      }
      p.started();
      Fate<Answers.Checked> fate = x.fate(tickets.get(p));
      if (fate instanceof Fate.Answered<Answers.Checked> a) {
        p.finished(a.answer().verdict(), a.micros());
        continue;
      }
      // an unguarded exchange answers every unit up to the one its worker died in
      if (!(fate instanceof Fate.Died<Answers.Checked> d)) {
        throw new IllegalStateException("no answer and no death");
      }
      p.died(d.death(), (System.nanoTime() - t) / 1_000);
      todo.subList(i + 1, todo.size()).forEach(Task::alone);
      return;
    }
  }
}
