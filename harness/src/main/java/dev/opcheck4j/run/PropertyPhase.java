package dev.opcheck4j.run;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ResultListener;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.Shrinker;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Predicate;

/**
 * Generated inputs around each example: for each real device, {@code tries} variants (the edge
 * cases first, then random), each checked by the value checks that passed on the examples. An input
 * the real kernel rejects is discarded and counted. A check's first failure is shrunk and reported
 * with the original and minimal example, the shrink steps, the seed and a rerun line; a check that
 * never fails gets one passed result. Gradient checks use a tenth of the tries (at least 3).
 *
 * <p>Generation and shrinking run here, in the parent; each call goes to the op's worker. A call
 * that kills the worker counts as "still fails" while shrinking; a generated input that kills it
 * is shrunk to a minimal one that does, reported as {@code kernel.crash} (or {@code kernel.timeout}),
 * and ends generation on that device. Each result's duration is the time of its own calls.
 */
final class PropertyPhase {
  static final Set<String> GENERATED = Set.of("fake.metadata", "mutation.undeclared", "alias.undeclared",
      "alias.returns-input", "alias.outputs", "noncontiguous", "determinism", "gradcheck.jacobian",
      "gradcheck.grad-output");
  static final String DOMAIN = "generate.domain";
  static final int SHRINK_BUDGET = 300;
  /** Each death costs a new worker (seconds): shrinking a crash gets fewer steps. */
  static final int DEATH_SHRINK_BUDGET = 24;

  private final RunPlan plan;
  private final OpUnits units;
  private final OpSpec spec;
  private final LibraryInfo.Op op;
  private final ResultListener sink;
  private final Map<String, Long> nanos = new HashMap<>();

  PropertyPhase(RunPlan plan, OpUnits units, OpSpec spec, LibraryInfo.Op op, ResultListener sink) {
    this.plan = plan;
    this.units = units;
    this.spec = spec;
    this.op = op;
    this.sink = sink;
  }

  /** A call that killed the worker: stops generation on the device. */
  private static final class Died extends RuntimeException {
    final transient KernelDeath death;
    final String check;

    Died(KernelDeath death, String check) {
      super(death.getMessage(), null, false, false);
      this.death = death;
      this.check = check;
    }
  }

  /** Runs the tries on {@code device} for the checks whose example results were all passed. */
  void run(Device device, Map<String, Outcome> examplePhase) {
    List<Check> open = new ArrayList<>();
    for (Check c : plan.checks()) {
      if (GENERATED.contains(c.id()) && c.appliesTo(device) && spec.skipReason(c.id()).isEmpty()
          && examplePhase.get(c.id() + "@" + device.label()) == Outcome.PASSED) {
        open.add(c);
      }
    }
    if (open.isEmpty() || spec.examples().isEmpty() || plan.tries() <= 0) {
      return;
    }
    List<ExampleGenerator> generators = new ArrayList<>();
    for (Example ex : spec.examples()) {
      generators.add(new ExampleGenerator(op.schema(), ex, spec.vary()));
    }
    SplittableRandom seeds = new SplittableRandom(plan.seed() ^ (op.name().hashCode() * 0x9E3779B97F4A7C15L) ^ device.ordinal());
    int gradTries = Math.max(3, plan.tries() / 10);
    Map<String, Integer> checked = new LinkedHashMap<>();
    int accepted = 0;
    int discarded = 0;
    Died died = null;
    for (int t = 0; t < plan.tries() && !open.isEmpty() && died == null && units.stopped().isEmpty(); t++) {
      ExampleGenerator gen = generators.get(t % generators.size());
      int round = t / generators.size();
      List<List<Long>> edges = gen.edgeCases();
      Choices choices = round < edges.size() ? Choices.replay(edges.get(round)) : Choices.random(seeds.nextLong());
      Example e = gen.generate(choices);
      List<Long> sequence = choices.sequence();
      String tryLabel = "try " + t + (round < edges.size() ? (round == 0 ? " (edge case: sizes 0)" : " (edge case: sizes 1)") : "");
      try {
      if (!realAccepts(e, device)) {
        discarded++;
        Check fake = open.stream().filter(c -> c.id().equals("fake.metadata")).findFirst().orElse(null);
        if (fake != null && metaAccepts(e)) {
          Predicate<Choices> fails = replay -> {
            Example x = gen.generate(replay);
            try {
              return !realAccepts(x, device) && metaAccepts(x);
            } catch (Died d) {
              return true; // a call that kills the worker still fails
            }
          };
          Verdict v = Verdict.failed("the meta kernel rejects what the " + device.label() + " kernel rejects",
              "the meta kernel accepts an input the " + device.label() + " kernel raises on",
              "make the Meta kernel check the same conditions as the real kernel");
          report(fake, device, gen, e, sequence, fails, tryLabel, v);
          open.remove(fake);
        }
        continue;
      }
      accepted++;
      for (Check c : List.copyOf(open)) {
        if (c.family().equals("gradcheck") && accepted > gradTries) {
          continue;
        }
        Verdict v = evaluate(c, e, device);
        checked.merge(c.id(), 1, Integer::sum);
        if (v.outcome() == Outcome.FAILED) {
          Predicate<Choices> fails = replay -> {
            Example x = gen.generate(replay);
            try {
              return realAccepts(x, device) && evaluate(c, x, device).outcome() == Outcome.FAILED;
            } catch (Died d) {
              return true; // a call that kills the worker still fails
            }
          };
          report(c, device, gen, e, sequence, fails, tryLabel, null);
          open.remove(c);
        } else if (v.outcome() == Outcome.ERRORED) {
          sink.accept(new CheckResult(op.name(), c.id(), device.label(), "generated from " + e.ref(),
              Outcome.ERRORED, v.facts(), micros(c.id())));
          open.remove(c);
        }
      }
      } catch (Died d) {
        died = d;
        reportDeath(d, device, gen, e, sequence, tryLabel, open);
      }
    }
    for (Check c : open) {
      if (died != null || units.stopped().isPresent()) {
        sink.accept(new CheckResult(op.name(), c.id(), device.label(), "generated (" + plan.tries() + " tries)",
            Outcome.SKIPPED, List.of(Fact.of("reason", "generation on " + device.label()
                + " stopped: a call killed the worker (see kernel.crash / kernel.timeout)"),
                Fact.of("inputs checked", checked.getOrDefault(c.id(), 0))), micros(c.id())));
        continue;
      }
      sink.accept(new CheckResult(op.name(), c.id(), device.label(), "generated (" + plan.tries() + " tries)",
          Outcome.PASSED, List.of(Fact.of("inputs checked", checked.getOrDefault(c.id(), 0)),
              Fact.of("seed", plan.seed())), micros(c.id())));
    }
    List<Fact> domain = new ArrayList<>();
    domain.add(Fact.of("tries", plan.tries()));
    domain.add(Fact.of("accepted", accepted));
    domain.add(Fact.of("discarded", discarded + " (the " + device.label() + " kernel raised on them)"));
    if (discarded * 2 > accepted + discarded) {
      domain.add(Fact.of("warning", "more than half of the generated inputs were outside the op's domain"));
      domain.add(Fact.of("hint", "narrow generation with \"vary\" in the spec: ranges for non-tensor"
          + " arguments ({\"box\": {\"int\": [0, 64]}}) or the dtypes it accepts ({\"dtype\": [\"float32\"]})"));
    }
    sink.accept(new CheckResult(op.name(), DOMAIN, device.label(), "generated (" + plan.tries() + " tries)",
        Outcome.PASSED, domain, micros(DOMAIN)));
  }

  /** A generated input killed the worker: shrink it to a minimal one that still does, and report it. */
  private void reportDeath(Died d, Device device, ExampleGenerator gen, Example first, List<Long> sequence,
      String tryLabel, List<Check> open) {
    long t = System.nanoTime();
    Check during = open.stream().filter(c -> c.id().equals(d.check)).findFirst().orElse(null);
    Predicate<Choices> dies = replay -> {
      Example x = gen.generate(replay);
      try {
        if (units.accepts(op.name(), device, x) && during != null) {
          units.evaluate(during.id(), op.name(), device, x);
        }
        return false;
      } catch (KernelDeath again) {
        return true;
      }
    };
    units.counting(false);
    Shrinker.Result shrunk = new Shrinker(dies, DEATH_SHRINK_BUDGET).shrink(sequence);
    units.counting(true);
    Example minimal = gen.generate(Choices.replay(shrunk.sequence()));
    List<Fact> more = List.of(
        Fact.of("example", first.ref() + " (" + tryLabel + ")  " + describe(first, device)),
        Fact.of("minimal example", describe(minimal, device) + "  (shrunk in " + shrunk.steps() + " steps)"));
    String check = d.check == null ? "the real kernel on a generated input (before any check)" : d.check;
    sink.accept(units.result(d.death, op.name(), check, device, first, more, (System.nanoTime() - t) / 1_000));
  }

  private void report(Check c, Device device, ExampleGenerator gen, Example first, List<Long> sequence,
      Predicate<Choices> fails, String tryLabel, Verdict fixed) {
    long t0 = System.nanoTime();
    units.counting(false);
    Shrinker.Result shrunk = new Shrinker(fails, SHRINK_BUDGET).shrink(sequence);
    units.counting(true);
    Example minimal = gen.generate(Choices.replay(shrunk.sequence()));
    Verdict v = fixed != null ? fixed : evaluate(c, minimal, device);
    if (v.outcome() != Outcome.FAILED) {
      v = fixed != null ? fixed : evaluate(c, first, device);
      minimal = first;
    }
    List<Fact> facts = new ArrayList<>();
    for (Fact f : v.facts()) {
      if (!f.key().equals("example") && !f.key().equals("hint")) {
        facts.add(f);
      }
    }
    facts.add(Fact.of("example", first.ref() + " (" + tryLabel + ")  " + describe(first, device)));
    facts.add(Fact.of("minimal example", describe(minimal, device) + "  (shrunk in " + shrunk.steps() + " steps)"));
    facts.add(Fact.of("seed", plan.seed()));
    facts.add(Fact.of("rerun", "./opcheck check " + units.source() + " --op " + op.name() + " --check " + c.id()
        + " --device " + device.label() + " --seed " + plan.seed() + " --tries " + plan.tries()));
    v.facts().stream().filter(f -> f.key().equals("hint")).findFirst().ifPresent(facts::add);
    nanos.merge(c.id(), System.nanoTime() - t0, Long::sum);
    sink.accept(new CheckResult(op.name(), c.id(), device.label(), "generated from " + first.ref(),
        Outcome.FAILED, facts, micros(c.id())));
  }

  private String describe(Example e, Device device) {
    try {
      return units.describe(op.name(), device, e);
    } catch (OpUnits.InvalidExample ex) {
      return "(cannot be materialized: " + ex.getMessage() + ")";
    } catch (KernelDeath ex) {
      return "(materializing it killed the worker: " + ex.getMessage() + ")";
    }
  }

  private boolean realAccepts(Example e, Device device) {
    return callable(e, device);
  }

  private boolean metaAccepts(Example e) {
    return callable(e, Device.META);
  }

  /** Whether the kernel accepts {@code e}; a death propagates as {@link Died}. */
  private boolean callable(Example e, Device device) {
    long t = System.nanoTime();
    try {
      return units.accepts(op.name(), device, e);
    } catch (KernelDeath d) {
      throw new Died(d, null);
    } finally {
      nanos.merge(DOMAIN, System.nanoTime() - t, Long::sum);
    }
  }

  private Verdict evaluate(Check c, Example e, Device device) {
    long t = System.nanoTime();
    try {
      return units.evaluate(c.id(), op.name(), device, e);
    } catch (KernelDeath d) {
      throw new Died(d, c.id());
    } finally {
      nanos.merge(c.id(), System.nanoTime() - t, Long::sum);
    }
  }

  private long micros(String key) {
    return nanos.getOrDefault(key, 0L) / 1_000;
  }
}
