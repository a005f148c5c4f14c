package dev.opcheck4j.run;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ExampleRef;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ResultListener;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.generate.Shrinker;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.Operator;
import java.util.ArrayList;
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
 */
final class PropertyPhase {
  static final Set<String> GENERATED = Set.of("fake.metadata", "mutation.undeclared", "alias.undeclared",
      "alias.returns-input", "alias.outputs", "noncontiguous", "determinism", "gradcheck.jacobian",
      "gradcheck.grad-output");
  static final String DOMAIN = "generate.domain";
  static final int SHRINK_BUDGET = 300;

  private final RunPlan plan;
  private final RunPlan.Target target;
  private final OpSpec spec;
  private final Operator op;
  private final ResultListener sink;

  PropertyPhase(RunPlan plan, RunPlan.Target target, OpSpec spec, Operator op, ResultListener sink) {
    this.plan = plan;
    this.target = target;
    this.spec = spec;
    this.op = op;
    this.sink = sink;
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
    long t0 = System.nanoTime();
    List<ExampleGenerator> generators = new ArrayList<>();
    for (Example ex : spec.examples()) {
      generators.add(new ExampleGenerator(op.schema(), ex, spec.vary()));
    }
    SplittableRandom seeds = new SplittableRandom(plan.seed() ^ (op.name().hashCode() * 0x9E3779B97F4A7C15L) ^ device.ordinal());
    int gradTries = Math.max(3, plan.tries() / 10);
    Map<String, Integer> checked = new LinkedHashMap<>();
    int accepted = 0;
    int discarded = 0;
    for (int t = 0; t < plan.tries() && !open.isEmpty(); t++) {
      ExampleGenerator gen = generators.get(t % generators.size());
      int round = t / generators.size();
      List<List<Long>> edges = gen.edgeCases();
      Choices choices = round < edges.size() ? Choices.replay(edges.get(round)) : Choices.random(seeds.nextLong());
      Example e = gen.generate(choices);
      List<Long> sequence = choices.sequence();
      String tryLabel = "try " + t + (round < edges.size() ? (round == 0 ? " (edge case: sizes 0)" : " (edge case: sizes 1)") : "");
      if (!realAccepts(e, device)) {
        discarded++;
        Check fake = open.stream().filter(c -> c.id().equals("fake.metadata")).findFirst().orElse(null);
        if (fake != null && metaAccepts(e)) {
          Predicate<Choices> fails = replay -> {
            Example x = gen.generate(replay);
            return !realAccepts(x, device) && metaAccepts(x);
          };
          Verdict v = Verdict.failed("the meta kernel rejects what the " + device.label() + " kernel rejects",
              "the meta kernel accepts an input the " + device.label() + " kernel raises on",
              "make the Meta kernel check the same conditions as the real kernel");
          report(fake, device, gen, e, sequence, fails, t, tryLabel, v, t0);
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
            return realAccepts(x, device) && evaluate(c, x, device).outcome() == Outcome.FAILED;
          };
          report(c, device, gen, e, sequence, fails, t, tryLabel, null, t0);
          open.remove(c);
        } else if (v.outcome() == Outcome.ERRORED) {
          sink.accept(new CheckResult(op.name(), c.id(), device.label(), "generated from " + e.ref(),
              Outcome.ERRORED, v.facts(), ms(t0)).withExample(new ExampleRef(e.ref(), true, t, plan.seed(), null)));
          open.remove(c);
        }
      }
    }
    for (Check c : open) {
      sink.accept(new CheckResult(op.name(), c.id(), device.label(), "generated (" + plan.tries() + " tries)",
          Outcome.PASSED, List.of(Fact.of("inputs checked", checked.getOrDefault(c.id(), 0)),
              Fact.of("seed", plan.seed())), ms(t0)).withExample(generatedSummary()));
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
        Outcome.PASSED, domain, ms(t0)).withExample(generatedSummary()));
  }

  /** All generated inputs of this op and device, from every example. */
  private ExampleRef generatedSummary() {
    return new ExampleRef(null, true, null, plan.seed(), plan.tries() + " tries from " + spec.examples().size()
        + (spec.examples().size() == 1 ? " example" : " examples"));
  }

  private void report(Check c, Device device, ExampleGenerator gen, Example first, List<Long> sequence,
      Predicate<Choices> fails, int tryIndex, String tryLabel, Verdict fixed, long t0) {
    Shrinker.Result shrunk = new Shrinker(fails, SHRINK_BUDGET).shrink(sequence);
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
    String firstText = describe(first, device);
    facts.add(Fact.of("example", first.ref() + " (" + tryLabel + ")  " + firstText));
    facts.add(Fact.of("minimal example", describe(minimal, device) + "  (shrunk in " + shrunk.steps() + " steps)"));
    facts.add(Fact.of("seed", plan.seed()));
    facts.add(Fact.of("rerun", "./opcheck check " + target.source() + " --op " + op.name() + " --check " + c.id()
        + " --device " + device.label() + " --seed " + plan.seed() + " --tries " + plan.tries()));
    v.facts().stream().filter(f -> f.key().equals("hint")).findFirst().ifPresent(facts::add);
    sink.accept(new CheckResult(op.name(), c.id(), device.label(), "generated from " + first.ref(),
        Outcome.FAILED, facts, ms(t0)).withExample(new ExampleRef(first.ref(), true, tryIndex, plan.seed(), firstText)));
  }

  private String describe(Example e, Device device) {
    try {
      return Materializer.bind(op, e, device, plan.seed()).description();
    } catch (ExampleException ex) {
      return "(cannot be materialized: " + ex.getMessage() + ")";
    }
  }

  private boolean realAccepts(Example e, Device device) {
    return callable(e, device);
  }

  private boolean metaAccepts(Example e) {
    return callable(e, Device.META);
  }

  private boolean callable(Example e, Device device) {
    try {
      OpCall.call(subject(e, device), Materializer.bind(op, e, device, plan.seed()));
      return true;
    } catch (ExampleException | OpCall.KernelError ex) {
      return false;
    }
  }

  private Verdict evaluate(Check c, Example e, Device device) {
    return Runner.evaluate(c, subject(e, device));
  }

  private Subject subject(Example e, Device device) {
    return new Subject(target.library(), op, spec, device, e, plan.seed());
  }

  private static long ms(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }
}
