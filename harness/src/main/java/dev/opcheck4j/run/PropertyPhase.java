package dev.opcheck4j.run;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ResultListener;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.GenerationCheck;
import dev.opcheck4j.checks.GenerationStats;
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
  static final int SHRINK_BUDGET = 300;

  private final RunPlan plan;
  private final RunPlan.Target target;
  private final OpSpec spec;
  private final Operator op;
  private final ResultListener sink;
  private final boolean strict;

  PropertyPhase(RunPlan plan, RunPlan.Target target, OpSpec spec, Operator op, ResultListener sink, boolean strict) {
    this.plan = plan;
    this.target = target;
    this.spec = spec;
    this.op = op;
    this.sink = sink;
    this.strict = strict;
  }

  /** Runs the tries on {@code device} for the checks whose example results were all passed. */
  void run(Device device, Map<String, Outcome> examplePhase) {
    List<Check> open = new ArrayList<>();
    List<GenerationCheck> judges = new ArrayList<>();
    for (Check c : plan.checks()) {
      if (!c.info().generated() || !c.appliesTo(device) || spec.skipReason(c.id()).isPresent()) {
        continue;
      }
      Outcome before = examplePhase.get(c.id() + "@" + device.label());
      if (c.scope() == CheckInfo.Scope.GENERATED && c instanceof GenerationCheck g) {
        String unmet = unmet(g, device, examplePhase);
        if (unmet == null) {
          judges.add(g);
        } else {
          sink.accept(Runner.result(op.name(), g, device.label(), "generated", Verdict.skipped(unmet), 0, strict));
        }
      } else if (before == Outcome.PASSED || before == Outcome.WARNING) {
        open.add(c);
      }
    }
    if (open.isEmpty() && judges.isEmpty() || spec.examples().isEmpty() || plan.tries() <= 0) {
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
    for (int t = 0; t < plan.tries() && (!open.isEmpty() || !judges.isEmpty()); t++) {
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
          report(fake, device, gen, e, sequence, fails, tryLabel, v, t0);
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
          report(c, device, gen, e, sequence, fails, tryLabel, null, t0);
          open.remove(c);
        } else if (v.outcome() == Outcome.ERRORED) {
          sink.accept(Runner.result(op.name(), c, device.label(), "generated from " + e.ref(), v, ms(t0), strict));
          open.remove(c);
        }
      }
    }
    String where = "generated (" + plan.tries() + " tries)";
    for (Check c : open) {
      Verdict v = Verdict.passed(Fact.of("inputs checked", checked.getOrDefault(c.id(), 0)), Fact.of("seed", plan.seed()));
      sink.accept(Runner.result(op.name(), c, device.label(), where, v, ms(t0), strict));
    }
    GenerationStats stats = new GenerationStats(plan.tries(), accepted, discarded, List.of(), "", "");
    for (GenerationCheck g : judges) {
      Verdict v = g.judge(subject(null, device), stats);
      sink.accept(Runner.result(op.name(), g, device.label(), where, v, ms(t0), strict));
    }
  }

  /** Why a check cannot run on the generated inputs of {@code device}, or null when it can. */
  private static String unmet(Check c, Device device, Map<String, Outcome> examplePhase) {
    for (String required : c.requires()) {
      Outcome o = examplePhase.getOrDefault(required + "@" + device.label(), examplePhase.get(required + "@-"));
      if (o != null && o != Outcome.PASSED && o != Outcome.WARNING) {
        return "requires " + required + ", which " + o.label();
      }
    }
    return null;
  }

  private void report(Check c, Device device, ExampleGenerator gen, Example first, List<Long> sequence,
      Predicate<Choices> fails, String tryLabel, Verdict fixed, long t0) {
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
    facts.add(Fact.of("example", first.ref() + " (" + tryLabel + ")  " + describe(first, device)));
    facts.add(Fact.of("minimal example", describe(minimal, device) + "  (shrunk in " + shrunk.steps() + " steps)"));
    facts.add(Fact.of("seed", plan.seed()));
    facts.add(Fact.of("rerun", "./opcheck check " + target.source() + " --op " + op.name() + " --check " + c.id()
        + " --device " + device.label() + " --seed " + plan.seed() + " --tries " + plan.tries()));
    v.facts().stream().filter(f -> f.key().equals("hint")).findFirst().ifPresent(facts::add);
    sink.accept(Runner.result(op.name(), c, device.label(), "generated from " + first.ref(),
        Verdict.failed(facts), ms(t0), strict));
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
