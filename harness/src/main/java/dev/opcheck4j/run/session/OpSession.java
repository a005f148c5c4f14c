package dev.opcheck4j.run.session;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.Repro;
import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.SupervisorCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Batch;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * One op's session with its kernels (a worker): its spec entry, sent to each worker once ({@link
 * Protocol.OpenOp}); its units, sent with the op's deadline, each unit's {@link
 * dev.opcheck4j.run.link.Fate} looked up by its ticket; the deaths the op caused, counted in a budget: after
 * {@link #MAX_DEATHS} the rest of the op is not run; and the one road from a verdict, or a death, to a
 * result ({@link Verdict#result}, with the op's severity policy).
 */
public final class OpSession {
  public static final int MAX_DEATHS = 3;
  /** The numbers given to spec entries; one sequence for the process, so two runs' never meet in a worker. */
  private static final AtomicInteger REFS = new AtomicInteger();

  private final RunPlan plan;
  private final RunPlan.Target target;
  private final OpSpec spec;
  /** The op's entry as its units name it, sent to each worker once. */
  private final Protocol.OpenOp open;
  private final Kernels kernels;
  private final SeverityPolicy severity;
  private final Budget budget;
  /** The example each repro of this op reproduces on (the minimal one, where shrinking found one), for its script. */
  private final Map<Repro, Example> reproduced;

  public OpSession(RunPlan plan, RunPlan.Target target, OpSpec spec, Kernels kernels, SeverityPolicy severity) {
    this(plan, target, spec, kernels, severity, new Budget(), new IdentityHashMap<>());
  }

  private OpSession(RunPlan plan, RunPlan.Target target, OpSpec spec, Kernels kernels, SeverityPolicy severity,
      Budget budget, Map<Repro, Example> reproduced) {
    this.reproduced = reproduced;
    this.plan = plan;
    this.target = target;
    this.spec = spec;
    // an op may have several entries, each its own contract: the worker is told which one, never just the op
    this.open = open(target.index(), spec);
    this.kernels = kernels;
    this.severity = severity;
    this.budget = budget;
  }

  /** The deaths an op's units caused, which count towards {@link #MAX_DEATHS}. */
  private static final class Budget {
    final List<Death> counted = new ArrayList<>();
    /** The crashes sent again without dying: not the op's, so not counted. */
    final StrayDeaths strays = new StrayDeaths();
    /** Where each crash reproduces alone, asked before it is reported. */
    final CrashWitness witness = new CrashWitness();
    /** How many {@link #uncounted} scopes are open. */
    int paused;
  }

  /** {@code entry} of {@code target} under a number of its own, which the run's units name it by. */
  public static Protocol.OpenOp open(int target, OpSpec entry) {
    return new Protocol.OpenOp(REFS.incrementAndGet(), target, entry);
  }

  /** The same op's session with its spec entry changed (synthesized examples); its deaths so far still count. */
  public OpSession withSpec(OpSpec changed) {
    return new OpSession(plan, target, changed, kernels, severity, budget, reproduced);
  }

  /** Searches (in the worker) for an example synthesized from the op's schema that the cpu kernel accepts. */
  public Kernels.Exchange synthesize(String op) {
    return run(List.of(new Protocol.Synthesize(target.index(), op, plan.seed())), false);
  }

  /**
   * What units on {@code example} run on. Units that share one {@code On} (a generated input's kernel
   * call and the checks it guards) send the example over the wire, and the worker decodes it, once
   * ({@link dev.opcheck4j.run.link.Wire.Shared}): make it once per input.
   */
  public Protocol.On on(String op, Device device, Example example) {
    return new Protocol.On(target.index(), op, device, example, plan.seed(), op == null ? Protocol.On.NO_REF : open.ref());
  }

  /** What a finding of this op is: a failure, or a warning for a warning check. */
  public SeverityPolicy severity() {
    return severity;
  }

  /** What reproduces a result of this op; the rerun of a crash or hang runs with one worker. */
  public Repro repro(String op, String check, Device device, Example example, String description, boolean oneWorker) {
    Repro r = new Repro(target.source(), op, check, device == null ? null : device.label(), plan.seed(), plan.tries(),
        example == null ? null : example.ref(), description, oneWorker);
    return shrunkTo(r, example);
  }

  /** {@code r}, whose script ({@code --repro}) rebuilds {@code minimal}: the example shrinking reached. */
  public Repro shrunkTo(Repro r, Example minimal) {
    if (minimal != null) {
      reproduced.put(r, minimal);
    }
    return r;
  }

  /** A check's verdict on {@code example} ({@link Answers.Checked}), or the death in its place. */
  public Kernels.Exchange evaluate(String check, String op, Device device, Example example) {
    return run(List.of(new Protocol.Evaluate(check, on(op, device, example))), false);
  }

  /** Adds {@code check}'s unit on {@code on} to {@code batch}: the ticket of its {@link Answers.Checked} answer. */
  public Batch.Ticket<Answers.Checked> evaluate(Batch batch, String check, Protocol.On on) {
    return batch.add(new Protocol.Evaluate(check, on));
  }

  /** A check to run on the op's {@code device} and {@code example} (null: none). */
  public record Asked(String check, Device device, Example example) {}

  /** Adds the unit of {@code asked} on {@code op} to {@code batch}: the ticket of its {@link Answers.Checked} answer. */
  public Batch.Ticket<Answers.Checked> evaluate(Batch batch, String op, Asked asked) {
    return batch.add(new Protocol.Evaluate(asked.check(), on(op, asked.device(), asked.example())));
  }

  /** Runs {@code batch} in one exchange, guarded if it is ({@link Batch#guarded}); an empty one is no exchange. */
  public Kernels.Exchange run(Batch batch) {
    return batch.isEmpty() ? Kernels.Exchange.none() : run(batch.units(), batch.isGuarded());
  }

  /** What an {@link Protocol.Accepts} unit answered: null when the kernel accepted the example, else what it raised. */
  public static String rejection(Answers.Acceptance accepts) {
    return accepts instanceof Answers.Rejected r ? r.firstLine() : null;
  }

  /**
   * Takes back {@code death}, counted when its exchange ended: one that running the tries one at a time
   * would not have caused. It is one death, taken back by name, never a mode switched off and on.
   */
  public void forgive(Death death) {
    budget.counted.removeIf(d -> d == death);
  }

  /** Adds the real kernel's call on {@code example} to {@code batch}: the ticket of its {@link Answers.Acceptance}. */
  public Batch.Ticket<Answers.Acceptance> accepts(Batch batch, String op, Device device, Example example) {
    return accepts(batch, on(op, device, example));
  }

  /** Adds the real kernel's call on {@code on} to {@code batch}: the ticket of its {@link Answers.Acceptance}. */
  public Batch.Ticket<Answers.Acceptance> accepts(Batch batch, Protocol.On on) {
    return batch.add(new Protocol.Accepts(on));
  }

  /**
   * Adds to {@code batch} a rejection check's unit on an input the real kernel raised {@code why} on: the
   * ticket of its {@link Answers.Checked} answer.
   */
  public Batch.Ticket<Answers.Checked> onRejected(Batch batch, String check, String op, Device device, Example example,
      String why) {
    return batch.add(new Protocol.OnRejected(check, on(op, device, example), why));
  }

  /** Materializes {@code example} on {@code device} ({@link Protocol.Bind}). */
  public Described describe(String op, Device device, Example example) {
    Kernels.Exchange x = run(List.of(new Protocol.Bind(on(op, device, example))), false);
    if (x.death().isPresent()) {
      return new Described.Killed(x.death().get());
    }
    Answers.Binding b = x.single(Answers.Binding.class);
    return b instanceof Answers.Unbindable u ? new Described.Unfit(u.why())
        : new Described.Shown(((Answers.Bound) b).description());
  }

  private Kernels.Exchange run(List<Protocol.Unit<?>> batch, boolean guarded) {
    java.util.function.Supplier<Kernels.Exchange> send = () -> kernels.run(List.of(open), batch, guarded, deadline());
    Kernels.Exchange sent = send.get();
    // in an uncounted scope (shrinking, saving a script's example) a death is charged to nothing: nothing to confirm
    Kernels.Exchange x = budget.paused > 0 ? sent : budget.strays.confirm(sent, spec.op(), send);
    x.death().ifPresent(d -> {
      if (budget.paused == 0) {
        budget.counted.add(d);
        budget.witness.ended(d, x.first(), batch, guarded, open);
      }
    });
    return x;
  }

  /** Where the crash {@code d} reproduces alone, on a fresh worker ({@link CrashWitness}), asked once; uncounted. */
  public CrashWitness.Alone alone(Death d) {
    return budget.witness.of(d, (entry, units, guarded) -> uncounted(() -> {
      kernels.renew();
      return kernels.run(List.of(entry), units, guarded, deadline());
    }));
  }

  /** Makes the next exchange run on a worker that has run nothing yet ({@link Kernels#renew}). */
  public void renew() {
    kernels.renew();
  }

  /**
   * {@code work}, its deaths not counted towards {@link #MAX_DEATHS}: shrinking re-finds a death
   * already counted. The count is back on when {@code work} returns, or throws.
   */
  public <T> T uncounted(Supplier<T> work) {
    budget.paused++;
    try {
      return work.get();
    } finally {
      budget.paused--;
    }
  }

  /** How the command line named the op's target, for rerun lines. */
  public String source() {
    return target.source();
  }

  public Duration deadline() {
    return spec.timeout().orElse(plan.timeout());
  }

  /** The crashes of this op's exchanges that were not theirs ({@link StrayDeaths}), each handed out once. */
  public List<StrayDeaths.Stray> strays() {
    return budget.strays.take();
  }

  /** How many times the op's units killed the worker so far (deaths while shrinking, forgiven and uncharged ones not counted). */
  public int deaths() {
    return (int) budget.counted.stream().filter(Death::charged).count();
  }

  /** A Skipped verdict once the op has killed its worker {@link #MAX_DEATHS} times, else empty. */
  public Optional<Verdict> stopped() {
    return deaths() >= MAX_DEATHS
        ? Optional.of(Verdict.skipped("not run: this op's kernels killed the worker " + deaths()
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
  public CheckResult result(Death d, String op, Check check, String doing, Device device, Example example,
      List<Fact> more, long micros) {
    return result(d, op, check, doing, device, example, example, more, micros);
  }

  /** {@link #result(Death, String, Check, String, Device, Example, List, long)}, its script rebuilding {@code minimal}. */
  public CheckResult result(Death d, String op, Check check, String doing, Device device, Example example,
      Example minimal, List<Fact> more, long micros) {
    CrashWitness.Alone alone = alone(d);
    if (alone instanceof CrashWitness.Alone.Crashed c && !c.inFlight() && c.on() != null) {
      // another input of the exchange crashed alone, not the one in flight: the crash is that input's
      example = minimal = c.on().example();
      check = c.check() == null ? null : BuiltinChecks.byId(c.check()).orElse(check);
      doing = c.check() == null ? "the real kernel on the input (before any check)" : c.check();
      d = new Death(d.cause(), d.message(), d.facts(), Optional.empty(), d.unit(), d.offThread());
    }
    List<Fact> details = new ArrayList<>();
    // the step the worker told last names what ran, down to the call that died or hung; what the
    // caller planned is the fallback (a worker run in this process tells none)
    details.add(Fact.of("check", d.step().orElse(doing)));
    if (example != null && more.isEmpty()) {
      details.add(Fact.of(Fact.EXAMPLE, example.ref()));
    }
    details.addAll(more);
    alone.shown().ifPresent(said -> details.add(Fact.of(CrashWitness.ALONE, said)));
    details.addAll(d.facts());
    details.add(Fact.of("seed", plan.seed()));
    SupervisorCheck supervisor = BuiltinChecks.supervising(d.cause());
    Finding finding = supervisor.finding(d.cause(), d.message(), deadline(), details);
    return result(op, supervisor, device, example == null ? CheckResult.NONE : example.ref(), Verdict.failed(finding),
        micros, shrunkTo(repro(op, check == null ? null : check.id(), device, example, null, true), minimal));
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
    CheckResult r = v.result(op, check, device == null ? CheckResult.NONE : device.label(), example, micros, severity,
        repro);
    return plan.repro() == null || r.outcome() != Outcome.FAILED ? r
        : r.withFinding(r.finding(), scripted(r, repro == null ? null : reproduced.get(repro), device));
  }

  /**
   * What reproduces {@code r}, with the PyTorch script written for it ({@code --repro}): {@code
   * DIR/<op>/<check>-<device>.py}, beside the example's tensors, which a worker materializes and saves
   * (on cpu for a meta-device result: the script rebuilds meta tensors from their metadata).
   */
  private Repro scripted(CheckResult r, Example example, Device device) {
    // a library-wide result is about "ns::*" (or one op of it): its scripts go under the library's file name
    String subject = r.op() != null && !r.op().endsWith("::*") ? r.op()
        : target.library().path().getFileName().toString();
    java.nio.file.Path dir = plan.repro().resolve(subject.replace('/', '_'));
    String stem = r.check() + "-" + (device == null ? "none" : device.label());
    Answers.ExampleSaved saved = null;
    String unsaved = null;
    // a finding about the op but no example (autograd.registration, fake.missing) is called on the entry's first
    boolean specExample = example == null && !spec.examples().isEmpty() && r.op() != null && !r.op().endsWith("::*");
    Example called = specExample ? spec.examples().get(0) : example;
    if (called != null && r.op() != null) {
      Device on = device == null || device == Device.META ? Device.CPU : device;
      Kernels.Exchange x = uncounted(() -> run(List.of(new Protocol.SaveExample(on(r.op(), on, called), dir, stem)),
          false));
      saved = x.death().isPresent() ? null : x.single(Answers.ExampleSaved.class);
      unsaved = x.death().isPresent() ? "saving it killed the worker" : saved.error();
      if (saved == null) {
        saved = new Answers.ExampleSaved(List.of(), unsaved);
      }
    }
    java.nio.file.Path file = ReproScript.write(dir.resolve(stem + ".py"), new ReproScript.Input(r.op(), r.check(),
        device == null ? null : device.label(), target.library().path().toAbsolutePath().toString(),
        ReproScript.summary(r.finding()), saved, specExample, unsaved, spec, deadline(), plan.seed()));
    Repro base = r.repro() != null ? r.repro() : new Repro(target.source(), r.op() == null ? subject : r.op(),
        r.check(), device == null ? null : device.label(), plan.seed(), plan.tries(), null, null, false);
    return base.withScript(file.toAbsolutePath().toString());
  }
}
