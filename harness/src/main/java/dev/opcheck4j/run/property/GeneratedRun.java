package dev.opcheck4j.run.property;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ExampleRef;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.Repro;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.torch.Device;
import java.time.Instant;

/**
 * One check's run over an op's generated inputs on one device, from its start to its one result, as
 * {@code run/CheckRun} owns a check on one example (both after JUnit's {@code NodeTestTask}): started
 * when the phase opens it, then exactly one result, whichever of the phase's roads ends it (a skip
 * before any try, the op stopped by its deaths, a failure shrunk on a try or a probe, or the verdict
 * over all its tries). A second result is a harness bug. The deaths the tries meet are the supervisor
 * checks' results ({@link Deaths}), not this run's; no check reads a generated run's outcome as a
 * prerequisite, so it records none.
 */
final class GeneratedRun {
  private final OpSession session;
  private final String op;
  private final Check check;
  private final Device device;
  private final RunListener sink;
  private boolean reported;

  GeneratedRun(OpSession session, String op, Check check, Device device, RunListener sink) {
    this.session = session;
    this.op = op;
    this.check = check;
    this.device = device;
    this.sink = sink;
  }

  /** {@code run}, started and skipped for {@code reason} before any try. */
  static void skipped(GeneratedRun run, String reason) {
    run.started("generated");
    run.report("generated", Verdict.skipped(reason), 0, null);
  }

  Check check() {
    return check;
  }

  /** Its unit starts, on the generated inputs {@code where} names. */
  void started(String where) {
    sink.unitStarted(new RunListener.UnitEvent(op, check.id(), device.label(), where, Instant.now()));
  }

  /** Its one result: {@code v} on {@code where}, with what reproduces it; an errored one keeps {@code repro} too. */
  void report(String where, Verdict v, long micros, Repro repro) {
    report(where, v, micros, repro, null);
  }

  /** As {@link #report(String, Verdict, long, Repro)}, shown on {@code example} (null: none). */
  void report(String where, Verdict v, long micros, Repro repro, ExampleRef example) {
    if (reported) {
      throw new IllegalStateException(check.id() + " on " + device.label() + " of " + op
          + " has a result already: a generated run reports exactly one");
    }
    reported = true;
    CheckResult r = session.result(op, check, device, where, v, micros, repro);
    if (v.outcome() == Outcome.ERRORED && repro != null) {
      r = r.withFinding(null, repro);
    }
    sink.result(example == null ? r : r.withExample(example));
  }
}
