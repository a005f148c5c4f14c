package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.plan.RunPlan;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Repro;
import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.checks.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.SupervisorCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The units of one op, sent to its kernels (a worker) with the op's deadline. Counts the worker
 * deaths the op caused: after {@link #MAX_DEATHS} the rest of the op is not run.
 */
public final class OpUnits {
  public static final int MAX_DEATHS = 3;

  private final RunPlan plan;
  private final RunPlan.Target target;
  private final OpSpec spec;
  /**
   * The spec entry sent with each unit when it is not one the worker reads (examples were synthesized),
   * else null.
   */
  private final OpSpec sent;
  /** Which of the target's entries the units belong to ({@link Protocol.On#entry()}), when {@link #sent} is null. */
  private final int entry;
  private final Kernels kernels;
  private final SeverityPolicy severity;
  private int deaths;
  private boolean counting = true;

  public OpUnits(RunPlan plan, RunPlan.Target target, OpSpec spec, Kernels kernels, SeverityPolicy severity) {
    this.plan = plan;
    this.target = target;
    this.spec = spec;
    // an op may have several entries, each its own contract: the worker is told which one, never just the op
    this.entry = spec.synthesis().isEmpty() ? target.ops().indexOf(spec) : Protocol.On.NO_ENTRY;
    this.sent = entry == Protocol.On.NO_ENTRY ? spec : null;
    this.kernels = kernels;
    this.severity = severity;
  }

  /** The same op's units with its spec entry changed (synthesized examples); deaths so far still count. */
  public OpUnits withSpec(OpSpec changed) {
    OpUnits u = new OpUnits(plan, target, changed, kernels, severity);
    u.deaths = deaths;
    return u;
  }

  /** Searches (in the worker) for an example synthesized from the op's schema that the cpu kernel accepts. */
  public ExampleSearch.Found synthesize(String op) throws KernelDeath {
    return run(new Protocol.Synthesize(target.index(), op, plan.seed())).found();
  }

  private Protocol.On on(String op, Device device, Example example) {
    return new Protocol.On(target.index(), op, device, example, plan.seed(), sent, entry);
  }

  /** What a finding of this op is: a failure, or a warning for a warning check. */
  public SeverityPolicy severity() {
    return severity;
  }

  /** What reproduces a result of this op; the rerun of a crash or hang runs with one worker. */
  public Repro repro(String op, String check, Device device, Example example, String description, boolean oneWorker) {
    return new Repro(target.source(), op, check, device == null ? null : device.label(), plan.seed(), plan.tries(),
        example == null ? null : example.ref(), description, oneWorker);
  }

  public Verdict evaluate(String check, String op, Device device, Example example) throws KernelDeath {
    return run(new Protocol.Evaluate(check, on(op, device, example))).verdict();
  }

  /** Null when the real kernel accepts the example; else the first line of what it raised (or why it cannot be made). */
  public String rejection(String op, Device device, Example example) throws KernelDeath {
    return rejection(run(new Protocol.Accepts(on(op, device, example))));
  }

  /** What an {@link Protocol.Accepts} unit gave: null when the kernel accepted the example, else what it raised. */
  public static String rejection(Kernels.Done accepts) {
    return rejection(accepts.answer());
  }

  private static String rejection(Protocol.Answer accepts) {
    return accepts instanceof Protocol.Rejected r ? r.firstLine() : null;
  }

  /**
   * The real kernel on {@code example} and, when it accepts it, {@code checks} on it, in one exchange
   * with the worker: the {@link Protocol.Accepts} unit first, then one {@link Protocol.Evaluate} unit per check.
   *
   * @throws KernelDeath when a unit killed the worker; its completed units come first
   */
  public List<Kernels.Done> tryOn(String op, Device device, Example example, List<String> checks) throws KernelDeath {
    return tryOn(op, device, List.of(example), checks);
  }

  /**
   * {@link #tryOn(String, Device, Example, List)} on each of {@code examples} in turn, in one exchange:
   * per example its {@link Protocol.Accepts} answer and, when the kernel accepted it, one answer per check.
   *
   * @throws KernelDeath when a unit killed the worker; the completed units come first
   */
  public List<Kernels.Done> tryOn(String op, Device device, List<Example> examples, List<String> checks)
      throws KernelDeath {
    List<Protocol.Unit<?>> batch = new ArrayList<>();
    for (Example example : examples) {
      Protocol.On on = on(op, device, example);
      batch.add(new Protocol.Accepts(on));
      for (String c : checks) {
        batch.add(new Protocol.Evaluate(c, on));
      }
    }
    return run(batch, true);
  }

  /** Takes back the last death counted: one that running the tries one at a time would not have caused. */
  public void forgiveDeath() {
    deaths--;
  }

  /**
   * The real kernel on each of {@code examples}, in one exchange: one {@link Protocol.Accepts} answer per example.
   *
   * @throws KernelDeath when one killed the worker; the completed ones come first
   */
  public List<Kernels.Done> accepts(String op, Device device, List<Example> examples) throws KernelDeath {
    if (examples.isEmpty()) {
      return List.of();
    }
    List<Protocol.Unit<?>> batch = new ArrayList<>();
    examples.forEach(e -> batch.add(new Protocol.Accepts(on(op, device, e))));
    return run(batch, false);
  }

  /**
   * An input the real kernel raised {@code why} on, to look at: the kernel on each of {@code reverts}
   * (the input with one argument put back), then each of the rejection {@code checks} on it.
   */
  public record FollowUp(Example rejected, String why, List<Example> reverts, List<String> checks) {}

  /**
   * The units of each of {@code inputs} in turn, in one exchange, unguarded: an {@link Protocol.Accepts}
   * answer per revert, an {@link Protocol.OnRejected} answer per check.
   *
   * @throws KernelDeath when one killed the worker; the completed ones come first
   */
  public List<Kernels.Done> followUps(String op, Device device, List<FollowUp> inputs) throws KernelDeath {
    List<Protocol.Unit<?>> batch = new ArrayList<>();
    for (FollowUp f : inputs) {
      f.reverts().forEach(e -> batch.add(new Protocol.Accepts(on(op, device, e))));
      Protocol.On on = on(op, device, f.rejected());
      f.checks().forEach(c -> batch.add(new Protocol.OnRejected(c, on, f.why())));
    }
    return batch.isEmpty() ? List.of() : run(batch, false);
  }

  /** A rejection check's verdict on an input the real kernel raised {@code why} on. */
  public Verdict onRejected(String check, String op, Device device, Example example, String why) throws KernelDeath {
    return run(new Protocol.OnRejected(check, on(op, device, example), why)).verdict();
  }

  /** The example's inputs as text, or the reason it does not fit the schema (as the exception's message). */
  public String describe(String op, Device device, Example example) throws KernelDeath, InvalidExample {
    Protocol.Binding b = run(new Protocol.Bind(on(op, device, example)));
    if (b instanceof Protocol.Unbindable u) {
      throw new InvalidExample(u.why());
    }
    return ((Protocol.Bound) b).description();
  }

  /** An example that does not fit the op's schema or the machine. */
  public static final class InvalidExample extends Exception {
    InvalidExample(String message) {
      super(message);
    }
  }

  private <A extends Protocol.Answer> A run(Protocol.Unit<A> unit) throws KernelDeath {
    return unit.answers().cast(run(List.of(unit), false).get(0).answer());
  }

  private List<Kernels.Done> run(List<Protocol.Unit<?>> batch, boolean guarded) throws KernelDeath {
    try {
      return kernels.run(batch, guarded, deadline());
    } catch (KernelDeath d) {
      if (counting) {
        deaths++;
      }
      throw d;
    }
  }

  /** Whether deaths count towards {@link #MAX_DEATHS}; not while shrinking, which re-finds a death already counted. */
  public void counting(boolean on) {
    counting = on;
  }

  /** How the command line named the op's target, for rerun lines. */
  public String source() {
    return target.source();
  }

  public Duration deadline() {
    return spec.timeout().orElse(plan.timeout());
  }

  /** How many times the op's units killed the worker so far (deaths while shrinking, and forgiven ones, not counted). */
  public int deaths() {
    return deaths;
  }

  /** A Skipped verdict once the op has killed its worker {@link #MAX_DEATHS} times, else empty. */
  public Optional<Verdict> stopped() {
    return deaths >= MAX_DEATHS
        ? Optional.of(Verdict.skipped("not run: this op's kernels killed the worker " + deaths
            + " times (see " + BuiltinChecks.supervisors() + "); the rest of the op is skipped"))
        : Optional.empty();
  }

  /**
   * The result a death becomes: the supervisor check that covers its cause gives it, for the unit in
   * flight, with what was running, how the worker died and what reproduces it (run with one worker).
   *
   * @param check the check that was running, or null when the harness was doing something else
   * @param doing what was running, as shown: the check's id, or what the harness was doing
   * @param more facts to add after what was running (the generated and minimal example)
   */
  public CheckResult result(KernelDeath d, String op, Check check, String doing, Device device, Example example,
      List<Fact> more, long micros) {
    List<Fact> details = new ArrayList<>();
    // the step the worker told last names what ran, down to the call that died or hung; what the
    // caller planned is the fallback (a worker run in this process tells none)
    details.add(Fact.of("check", d.step().orElse(doing)));
    if (example != null && more.isEmpty()) {
      details.add(Fact.of("example", example.ref()));
    }
    details.addAll(more);
    details.addAll(d.facts());
    details.add(Fact.of("seed", plan.seed()));
    SupervisorCheck supervisor = BuiltinChecks.supervising(d.death());
    Finding finding = supervisor.finding(d.death(), d.getMessage(), deadline(), details);
    return result(op, supervisor, device, example == null ? CheckResult.NONE : example.ref(), Verdict.failed(finding),
        micros, repro(op, check == null ? null : check.id(), device, example, null, true));
  }

  /**
   * The result {@code v} becomes for {@code check} on this op: every verdict of the op's units, its
   * generated inputs and its deaths takes this road ({@link Verdict#result}, with the op's severity policy).
   *
   * @param device the device, or null for none
   * @param example what it ran on, as results name it
   * @param repro what reproduces it, or null
   */
  public CheckResult result(String op, Check check, Device device, String example, Verdict v, long micros,
      Repro repro) {
    return v.result(op, check, device == null ? CheckResult.NONE : device.label(), example, micros, severity, repro);
  }
}
