package dev.opcheck4j.run;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunBlock;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.run.session.Prerequisites;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import java.time.Instant;
import java.util.List;

/**
 * One check on one (op, device, example) of an op's own checks, from its skip to its recorded result,
 * as JUnit's {@code NodeTestTask} owns a test node: skipped (why, decided once, when it is planned), or
 * started, then its verdict or its worker's death, then its one result, then what its dependants read
 * of it ({@link Prerequisites}). It reports exactly one result; a second one is a harness bug.
 */
final class CheckRun implements CheckBatch.Task {
  /**
   * What every check run of one op shares: its session with the worker, its spec entry and what the
   * worker reported of it, what its checks so far gave, where its results go.
   */
  record Op(OpSession session, OpSpec spec, LibraryInfo.Op info, Prerequisites seen, RunListener sink,
      boolean cudaAvailable) {}

  private final Op op;
  private final Check check;
  private final Device device;
  private final Example example;
  /** Its verdict when known without a unit (an invalid example), else null. */
  private final Verdict given;
  /** Why it does not run a unit, or null when it runs one: the given verdict, else decided when planned. */
  private final Verdict skip;
  private boolean reported;

  /** A check run planned now; {@code given} is its verdict when known without a unit (null: decide). */
  CheckRun(Op op, Check check, Device device, Example example, Verdict given) {
    this.op = op;
    this.check = check;
    this.device = device;
    this.example = example;
    this.given = given;
    this.skip = given != null ? given : decide();
  }

  @Override
  public Check check() {
    return check;
  }

  @Override
  public Verdict skip() {
    return skip;
  }

  /** Its unit starts: only a check that really runs is started, never one that is skipped. */
  @Override
  public void started() {
    op.sink().unitStarted(new RunListener.UnitEvent(op.info().name(), check.id(),
        device == null ? CheckResult.NONE : device.label(), example == null ? CheckResult.NONE : example.ref(),
        Instant.now()));
  }

  /** Its verdict becomes its result, and the worst outcome over a device's examples what dependants see. */
  @Override
  public void finished(Verdict v, long micros) {
    once();
    CheckResult r = op.session().result(op.info().name(), check, device,
        example == null ? CheckResult.NONE : example.ref(), v, micros,
        op.session().repro(op.info().name(), check.id(), device, example, null, false));
    op.seen().add(check.id(), device, r.outcome(), r.reason());
    op.sink().result(r);
  }

  /** The worker died in its unit: the supervisor check's result in its place, and a failure for dependants. */
  @Override
  public void died(Death d, long micros) {
    boolean crash = d.cause() instanceof Cause.Crash;
    if (crash && op.seen().diagnosing(check, device)) {
      // run to diagnose a crash its prerequisite reported, it crashed too, outside its guards: that crash is
      // reported already, and this one is charged to nothing
      op.session().forgive(d);
      finished(Verdict.skipped("no diagnosis of the crash: under this check's guards the kernel crashed too, outside"
          + " them (" + d.message() + ")"), micros);
      return;
    }
    once();
    op.seen().died(check.id(), device, crash);
    op.sink().result(op.session().result(d, op.info().name(), check, check.id(), device, example, List.of(), micros));
  }

  /** In an exchange of its own (after a death ended the exchange it was planned in), decided again first. */
  @Override
  public void alone() {
    if (given != null) {
      finished(given, 0);
      return;
    }
    long t = System.nanoTime();
    Verdict v = decide();
    if (v != null) {
      finished(v, micros(t));
      return;
    }
    started();
    Kernels.Exchange x = op.session().evaluate(check.id(), op.info().name(), device, example);
    if (x.death().isPresent()) {
      died(x.death().get(), micros(t));
    } else {
      finished(x.single(Answers.Checked.class).verdict(), micros(t));
    }
  }

  @Override
  public OpSession.Asked asked() {
    return new OpSession.Asked(check.id(), device, example);
  }

  /** Microseconds since {@code t0} ({@link System#nanoTime}). */
  static long micros(long t0) {
    return (System.nanoTime() - t0) / 1_000;
  }

  private void once() {
    if (reported) {
      throw new IllegalStateException(check.id() + " on " + device + " reported twice");
    }
    reported = true;
  }

  /** The verdict of a check that runs no unit here (why it is skipped), or null when it runs one. */
  private Verdict decide() {
    Verdict v = precondition();
    if (v == null) {
      v = op.session().stopped().orElse(null);
    }
    if (v == null) {
      // the spec declares nothing for it to check: no unit to start
      OpTags tags = OpTags.of(op.info().tags(), op.spec());
      v = check.missingFrom(op.spec()).or(() -> check.notFor(op.info().schema(), tags)).map(Verdict::skipped)
          .orElse(null);
    }
    return v;
  }

  /** A Skipped verdict when the check cannot run here, or null when it can. */
  private Verdict precondition() {
    var why = op.spec().skipReason(check.id());
    if (why.isPresent()) {
      return Verdict.skipped(Coverage.SPEC_SKIP + why.get());
    }
    if (device == Device.CUDA && !op.cudaAvailable()) {
      return Verdict.skipped(RunBlock.NO_CUDA);
    }
    String unmet = op.seen().unmet(check, device);
    return unmet == null ? null : Verdict.skipped(unmet);
  }
}
