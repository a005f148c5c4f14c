package dev.opcheck4j.run;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
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
final class OpUnits {
  static final int MAX_DEATHS = 3;

  private final RunPlan plan;
  private final RunPlan.Target target;
  private final OpSpec spec;
  /** The spec entry sent with each unit when it is not the one the worker reads (examples were synthesized). */
  private final OpSpec sent;
  private final Kernels kernels;
  private final boolean strict;
  private int deaths;
  private boolean counting = true;

  OpUnits(RunPlan plan, RunPlan.Target target, OpSpec spec, Kernels kernels, boolean strict) {
    this.plan = plan;
    this.target = target;
    this.spec = spec;
    this.sent = spec.synthesis().isEmpty() ? null : spec;
    this.kernels = kernels;
    this.strict = strict;
  }

  /** The same op's units with its spec entry changed (synthesized examples); deaths so far still count. */
  OpUnits withSpec(OpSpec changed) {
    OpUnits u = new OpUnits(plan, target, changed, kernels, strict);
    u.deaths = deaths;
    return u;
  }

  /** Searches (in the worker) for an example synthesized from the op's schema that the cpu kernel accepts. */
  ExampleSearch.Found synthesize(String op) throws KernelDeath {
    return run(new Protocol.Synthesize(target.index(), op, plan.seed())).found();
  }

  private Protocol.On on(String op, Device device, Example example) {
    return new Protocol.On(target.index(), op, device, example, plan.seed(), sent);
  }

  /** Whether findings of warning checks are failures for this op. */
  boolean strict() {
    return strict;
  }

  Verdict evaluate(String check, String op, Device device, Example example) throws KernelDeath {
    return run(new Protocol.Evaluate(check, on(op, device, example))).verdict();
  }

  /** Null when the real kernel accepts the example; else the first line of what it raised (or why it cannot be made). */
  String rejection(String op, Device device, Example example) throws KernelDeath {
    return rejection(run(new Protocol.Accepts(on(op, device, example))));
  }

  /** What an {@link Protocol.Accepts} unit gave: null when the kernel accepted the example, else what it raised. */
  static String rejection(Kernels.Done accepts) {
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
  List<Kernels.Done> tryOn(String op, Device device, Example example, List<String> checks) throws KernelDeath {
    Protocol.On on = on(op, device, example);
    List<Protocol.Unit<?>> batch = new ArrayList<>();
    batch.add(new Protocol.Accepts(on));
    for (String c : checks) {
      batch.add(new Protocol.Evaluate(c, on));
    }
    return run(batch, true);
  }

  /**
   * The real kernel on each of {@code examples}, in one exchange: one {@link Protocol.Accepts} answer per example.
   *
   * @throws KernelDeath when one killed the worker; the completed ones come first
   */
  List<Kernels.Done> accepts(String op, Device device, List<Example> examples) throws KernelDeath {
    if (examples.isEmpty()) {
      return List.of();
    }
    List<Protocol.Unit<?>> batch = new ArrayList<>();
    examples.forEach(e -> batch.add(new Protocol.Accepts(on(op, device, e))));
    return run(batch, false);
  }

  /** A rejection check's verdict on an input the real kernel raised {@code why} on. */
  Verdict onRejected(String check, String op, Device device, Example example, String why) throws KernelDeath {
    return run(new Protocol.OnRejected(check, on(op, device, example), why)).verdict();
  }

  /** The example's inputs as text, or the reason it does not fit the schema (as the exception's message). */
  String describe(String op, Device device, Example example) throws KernelDeath, InvalidExample {
    Protocol.Binding b = run(new Protocol.Bind(on(op, device, example)));
    if (b instanceof Protocol.Unbindable u) {
      throw new InvalidExample(u.why());
    }
    return ((Protocol.Bound) b).description();
  }

  /** An example that does not fit the op's schema or the machine. */
  static final class InvalidExample extends Exception {
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
  void counting(boolean on) {
    counting = on;
  }

  /** How the command line named the op's target, for rerun lines. */
  String source() {
    return target.source();
  }

  Duration deadline() {
    return spec.timeout().orElse(plan.timeout());
  }

  /** A Skipped verdict once the op has killed its worker {@link #MAX_DEATHS} times, else empty. */
  Optional<Verdict> stopped() {
    return deaths >= MAX_DEATHS
        ? Optional.of(Verdict.skipped("not run: this op's kernels killed the worker " + deaths
            + " times (see kernel.crash / kernel.timeout); the rest of the op is skipped"))
        : Optional.empty();
  }

  /**
   * The result a death becomes: {@code kernel.crash} or {@code kernel.timeout} for the unit in
   * flight, with what was running, how the worker died and a rerun line.
   *
   * @param check the check that was running (or what the harness was doing)
   * @param more facts to add before the rerun line (the generated and minimal example)
   */
  CheckResult result(KernelDeath d, String op, String check, Device device, Example example, List<Fact> more,
      long micros) {
    boolean timeout = d.check().equals(KernelDeath.TIMEOUT);
    List<Fact> facts = new ArrayList<>();
    facts.add(Fact.of("expected", timeout ? "the unit finishes within " + deadline().toSeconds() + " s"
        : "the kernel returns or raises; the process survives"));
    facts.add(Fact.of("but was", d.getMessage()));
    facts.add(Fact.of("check", check));
    if (example != null && more.isEmpty()) {
      facts.add(Fact.of("example", example.ref()));
    }
    facts.addAll(more);
    d.facts().stream().filter(f -> !f.key().equals("cause")).forEach(facts::add);
    facts.add(Fact.of("seed", plan.seed()));
    facts.add(Fact.of("rerun", "./opcheck check " + target.source() + " --op " + op
        + (check.contains(" ") ? "" : " --check " + check) + (device == null ? "" : " --device " + device.label())
        + " --seed " + plan.seed() + " --tries " + plan.tries() + " --jobs 1"));
    facts.add(Fact.of("hint", timeout
        ? "an infinite loop, or a kernel far slower than the deadline: give the op a \"timeout\" in the spec if it is only slow"
        : "the native frames name the faulting function; rerun under gdb, or build the library with -fsanitize=address"));
    return new CheckResult(op, d.check(), device == null ? CheckResult.NONE : device.label(),
        example == null ? CheckResult.NONE : example.ref(), Outcome.FAILED, facts, micros);
  }
}
