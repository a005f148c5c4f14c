package dev.opcheck4j.run;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.run.plan.ExpectedFailures;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Judges a run's results by its expected-failures file, between the run and its listeners, in plan
 * order: a failure an entry covers becomes an expected failure; an entry whose checks ran on its op and
 * failed nowhere becomes one unexpected-pass result, given when the op's results are all in (after its
 * own job, or after the library-wide job for an op the plan has no job for). The results file and the
 * result cache keep the checks' own verdicts, so a changed file never needs a rerun.
 */
public final class Expectations implements RunListener {
  private final ExpectedFailures expected;
  private final Set<String> jobOps;
  private final RunListener next;
  private final List<CheckResult> results = new ArrayList<>();
  private final Set<ExpectedFailures.Entry> matched = new HashSet<>();
  private final Set<ExpectedFailures.Entry> resolved = new HashSet<>();
  private final Map<ExpectedFailures.Entry, Set<String>> passedOn = new LinkedHashMap<>();
  private String spec;

  /**
   * @param expected the entries that hold in this run
   * @param jobOps the ops the plan has a job of their own for
   * @param next the listener of the judged events
   */
  Expectations(ExpectedFailures expected, Set<String> jobOps, RunListener next) {
    this.expected = expected;
    this.jobOps = jobOps;
    this.next = next;
  }

  /**
   * The checks' own verdicts of a finished run (shards merged from their results files) judged by
   * {@code expected} as the run would have judged them: each library's library-wide results, then each
   * op's, in order.
   *
   * @param spec the spec file every op is from, or null when the run had several (then no {@code spec:}
   *     group holds)
   */
  public static List<CheckResult> judge(List<CheckResult> results, ExpectedFailures expected, String spec) {
    Map<String, List<CheckResult>> jobs = new LinkedHashMap<>();
    results.stream().filter(r -> r.library() != null).forEach(r -> jobs.computeIfAbsent(r.library(), k -> new ArrayList<>()).add(r));
    results.stream().filter(r -> r.library() == null).forEach(r -> jobs.computeIfAbsent(r.op(), k -> new ArrayList<>()).add(r));
    Set<String> ops = new HashSet<>();
    results.stream().filter(r -> r.library() == null).forEach(r -> ops.add(r.op()));
    Expectations judge = new Expectations(expected, ops, RunListener.NONE);
    for (Map.Entry<String, List<CheckResult>> job : jobs.entrySet()) {
      OpEvent op = new OpEvent(job.getKey(), job.getKey(), spec, java.time.Instant.EPOCH);
      judge.opStarted(op);
      job.getValue().forEach(judge::result);
      judge.opFinished(op);
    }
    return judge.results();
  }

  /** The judged results, in the order the listener got them. */
  synchronized List<CheckResult> results() {
    return List.copyOf(results);
  }

  @Override
  public void runStarted(RunInfo run) {
    next.runStarted(run);
  }

  @Override
  public void planned(int ops) {
    next.planned(ops);
  }

  @Override
  public synchronized void opStarted(OpEvent op) {
    spec = op.spec();
    next.opStarted(op);
  }

  @Override
  public void unitStarted(UnitEvent unit) {
    next.unitStarted(unit);
  }

  @Override
  public synchronized void result(CheckResult r) {
    CheckResult judged = r;
    for (ExpectedFailures.Entry e : expected.entries()) {
      if (!ExpectedFailures.holdsFor(e.scope(), spec) || !e.covers(r.check(), r.device()) || !concerns(r, e.op())) {
        continue;
      }
      if (r.outcome() == Outcome.FAILED && r.op().equals(e.op())) {
        matched.add(e); // every entry that covers it: a family's and a check's entry alike
        judged = judged == r ? r.expected(e.expectation(expected.file())) : judged;
      } else if (r.outcome().passes()) {
        passedOn.computeIfAbsent(e, k -> new LinkedHashSet<>()).add(r.device());
      }
    }
    give(judged);
  }

  @Override
  public synchronized void opFinished(OpEvent op) {
    for (ExpectedFailures.Entry e : expected.entries()) {
      boolean due = op.libraryWide() ? !jobOps.contains(e.op()) : e.op().equals(op.op());
      if (due && ExpectedFailures.holdsFor(e.scope(), op.spec()) && resolved.add(e) && !matched.contains(e)
          && passedOn.containsKey(e)) {
        give(unexpectedPass(e, passedOn.get(e)));
      }
    }
    next.opFinished(op);
  }

  @Override
  public void runFinished(RunInfo run, RunEnd end) {
    next.runFinished(run, end);
  }

  private void give(CheckResult r) {
    results.add(r);
    next.result(r);
  }

  /** Whether {@code r} is about {@code op}: named by it, or a library-wide result about its namespace ({@code a|b::*}). */
  private static boolean concerns(CheckResult r, String op) {
    if (r.op().equals(op)) {
      return true;
    }
    if (!r.op().endsWith("::*") || !op.contains("::")) {
      return false;
    }
    String ns = op.substring(0, op.indexOf("::"));
    return List.of(r.op().substring(0, r.op().length() - 3).split("\\|")).contains(ns);
  }

  private CheckResult unexpectedPass(ExpectedFailures.Entry e, Set<String> devices) {
    String where = devices.contains(CheckResult.NONE) ? "" : " on " + String.join(", ", devices);
    List<Fact> facts = List.of(
        new Fact("expected", "a failure of " + e.key() + " (listed: " + e.reason() + ")"),
        new Fact("but was", e.checks() + " ran on " + e.op() + where + " and failed nowhere"),
        new Fact("listed at", e.location()),
        new Fact("hint", "the defect is gone: remove the entry (--accept " + expected.file() + " does)"));
    return CheckResult.unexpectedPass(e.expectation(expected.file()), e.checks(),
        e.device() == null ? CheckResult.NONE : e.device(), facts);
  }
}
