package dev.opcheck4j.run;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ResultListener;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.GenerationCheck;
import dev.opcheck4j.checks.GenerationStats;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.RejectionCheck;
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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Generated inputs around each example. For each real device: first the op's domain is probed (each
 * tensor re-laid out, each other dtype, on every example) and what the kernel rejects everywhere is
 * left out of generation and reported once; then {@code tries} variants (the edge cases first, then
 * random), each checked by the value checks that passed on the examples. An input the real kernel
 * rejects is discarded, counted, and shown to the checks that judge rejected inputs. A check's first
 * failure is shrunk, keeping its cause, and reported with the original and minimal example, the
 * shrink steps, the seed and a rerun line; a check that never fails gets one passed result. Gradient
 * checks use a tenth of the tries (at least 3).
 *
 * <p>Generation and shrinking are pure Java; the kernel is called only through {@link #rejection}
 * and {@link #evaluate}, so they can move to another process.
 */
final class PropertyPhase {
  static final int SHRINK_BUDGET = 300;
  /** Rejected tries whose cause is looked for by putting back one argument at a time. */
  static final int BLAME_BUDGET = 10;

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

  /** What the probes found out of domain: per tensor label the layouts, and the dtypes, with why. */
  private record Discovery(Map<String, Set<String>> layouts, Set<String> dtypes, List<String> lines) {}

  /** Runs the tries on {@code device} for the checks whose example results were all passed. */
  void run(Device device, Map<String, Outcome> examplePhase) {
    List<Check> open = new ArrayList<>();
    List<GenerationCheck> judges = new ArrayList<>();
    List<RejectionCheck> rejecters = new ArrayList<>();
    for (Check c : plan.checks()) {
      if (!c.info().generated() || !c.appliesTo(device) || spec.skipReason(c.id()).isPresent()) {
        continue;
      }
      if (c.scope() == CheckInfo.Scope.GENERATED) {
        String unmet = unmet(c, device, examplePhase);
        if (unmet != null) {
          sink.accept(Runner.result(op.name(), c, device.label(), "generated", Verdict.skipped(unmet), 0, strict));
        } else if (c instanceof GenerationCheck g) {
          judges.add(g);
        } else if (c instanceof RejectionCheck r) {
          rejecters.add(r);
        }
        continue;
      }
      Outcome before = examplePhase.get(c.id() + "@" + device.label());
      if (before == Outcome.PASSED || before == Outcome.WARNING) {
        open.add(c);
      }
    }
    if (open.isEmpty() && judges.isEmpty() && rejecters.isEmpty() || spec.examples().isEmpty() || plan.tries() <= 0) {
      return;
    }
    long t0 = System.nanoTime();
    String where = "generated (" + plan.tries() + " tries)";
    List<ExampleGenerator> plain = new ArrayList<>();
    for (Example ex : spec.examples()) {
      plain.add(new ExampleGenerator(op.schema(), ex, spec.vary(), spec.domain(), Map.of(), Set.of()));
    }
    Map<RejectionCheck, Integer> rejectedSeen = new LinkedHashMap<>();
    Discovery found = discover(plain, device, rejecters, rejectedSeen, t0);
    List<ExampleGenerator> generators = plain.stream().map(g -> g.excluding(found.layouts(), found.dtypes())).toList();
    SplittableRandom seeds = new SplittableRandom(plan.seed() ^ (op.name().hashCode() * 0x9E3779B97F4A7C15L) ^ device.ordinal());
    int gradTries = Math.max(3, plan.tries() / 10);
    Map<String, Integer> checked = new LinkedHashMap<>();
    Map<String, Integer> messages = new TreeMap<>();
    Map<String, String> firstMessage = new LinkedHashMap<>();
    Map<String, Integer> blamed = new TreeMap<>();
    int blameLeft = BLAME_BUDGET;
    int accepted = 0;
    int discarded = 0;
    boolean more = true;
    for (int t = 0; t < plan.tries() && more; t++) {
      ExampleGenerator gen = generators.get(t % generators.size());
      int round = t / generators.size();
      List<Map.Entry<String, List<Long>>> edges = List.copyOf(gen.edgeCases().entrySet());
      Choices choices = round < edges.size() ? Choices.replay(edges.get(round).getValue()) : Choices.random(seeds.nextLong());
      Example e = gen.generate(choices);
      List<Long> sequence = choices.sequence();
      String tryLabel = "try " + t + (round < edges.size() ? " (edge case: " + edges.get(round).getKey() + ")" : "");
      String rejected = rejection(e, device);
      if (rejected != null) {
        discarded++;
        String cause = Verdict.normalize(rejected);
        messages.merge(cause, 1, Integer::sum);
        firstMessage.putIfAbsent(cause, rejected);
        if (blameLeft > 0) {
          blameLeft--;
          for (String arg : gen.changedArguments(e)) {
            if (rejection(gen.revert(e, arg), device) == null) {
              blamed.merge(arg, 1, Integer::sum);
            }
          }
        }
        for (RejectionCheck r : List.copyOf(rejecters)) {
          Verdict v = onRejected(r, e, device, rejected);
          rejectedSeen.merge(r, 1, Integer::sum);
          if (v.outcome() == Outcome.FAILED || v.outcome() == Outcome.ERRORED) {
            Function<Example, Verdict> judge = x -> {
              String again = rejection(x, device);
              return again == null ? Verdict.passed() : onRejected(r, x, device, again);
            };
            report(r, device, gen, e, sequence, judge, v, tryLabel, t0);
            rejecters.remove(r);
          }
        }
      } else {
        accepted++;
        for (Check c : List.copyOf(open)) {
          if (c.family().equals("gradcheck") && accepted > gradTries) {
            continue;
          }
          Verdict v = evaluate(c, e, device);
          checked.merge(c.id(), 1, Integer::sum);
          if (v.outcome() == Outcome.FAILED || v.outcome() == Outcome.ERRORED) {
            Function<Example, Verdict> judge = x -> rejection(x, device) == null ? evaluate(c, x, device) : Verdict.passed();
            report(c, device, gen, e, sequence, judge, v, tryLabel, t0);
            open.remove(c);
          }
        }
      }
      more = !open.isEmpty() || !judges.isEmpty() || !rejecters.isEmpty();
    }
    for (Check c : open) {
      Verdict v = Verdict.passed(Fact.of("inputs checked", checked.getOrDefault(c.id(), 0)), Fact.of("seed", plan.seed()));
      sink.accept(Runner.result(op.name(), c, device.label(), where, v, ms(t0), strict));
    }
    for (RejectionCheck r : rejecters) {
      int n = rejectedSeen.getOrDefault(r, 0);
      Verdict v = n == 0
          ? Verdict.skipped("the " + device.label() + " kernel rejected none of the generated inputs: nothing to judge")
          : Verdict.passed(Fact.of("rejected inputs judged", n), Fact.of("seed", plan.seed()));
      sink.accept(Runner.result(op.name(), r, device.label(), where, v, ms(t0), strict));
    }
    String top = messages.entrySet().stream().max(Map.Entry.comparingByValue())
        .map(m -> "\"" + firstMessage.get(m.getKey()) + "\" (" + m.getValue() + " of " + plan.tries() + " tries)").orElse("");
    int blameTotal = Math.min(BLAME_BUDGET, discarded);
    String blame = blamed.entrySet().stream().max(Map.Entry.comparingByValue())
        .map(b -> "'" + b.getKey() + "': with the example's value back, the kernel accepted " + b.getValue() + " of "
            + blameTotal + " rejected tries looked at").orElse(discarded > 0 ? "no single argument (each put back alone was still rejected)" : "");
    GenerationStats stats = new GenerationStats(plan.tries(), accepted, discarded, found.lines(), top, blame);
    for (GenerationCheck g : judges) {
      Verdict v = g.judge(subject(null, device), stats);
      sink.accept(Runner.result(op.name(), g, device.label(), where, v, ms(t0), strict));
    }
  }

  /**
   * Probes the domain on every example: each tensor in each other layout generation could draw,
   * and each other dtype. A layout or dtype rejected on every example where it was probed is left
   * out of generation and reported once. Rejected probes are also shown to the rejection checks.
   */
  private Discovery discover(List<ExampleGenerator> gens, Device device, List<RejectionCheck> rejecters,
      Map<RejectionCheck, Integer> rejectedSeen, long t0) {
    Map<String, Map<String, String>> layoutRejects = new LinkedHashMap<>();
    Map<String, Set<String>> layoutAccepts = new LinkedHashMap<>();
    Map<String, String> dtypeRejects = new LinkedHashMap<>();
    Set<String> dtypeAccepts = new LinkedHashSet<>();
    for (ExampleGenerator gen : gens) {
      for (Map.Entry<String, Integer> t : gen.tensorRanks().entrySet()) {
        for (String layout : gen.layoutsForRank(t.getValue())) {
          if (layout.equals("contiguous")) {
            continue;
          }
          Example probe = gen.withLayout(t.getKey(), layout);
          String why = rejection(probe, device);
          if (why == null) {
            layoutAccepts.computeIfAbsent(t.getKey(), k -> new LinkedHashSet<>()).add(layout);
          } else {
            layoutRejects.computeIfAbsent(t.getKey(), k -> new LinkedHashMap<>()).putIfAbsent(layout, why);
            judgeProbe(probe, why, "'" + t.getKey() + "' " + layout, device, rejecters, rejectedSeen, t0);
          }
        }
      }
      for (Map.Entry<String, List<String>> d : gen.otherDtypes().entrySet()) {
        for (String to : d.getValue()) {
          Example probe = gen.withDtype(d.getKey(), to);
          String why = rejection(probe, device);
          if (why == null) {
            dtypeAccepts.add(to);
          } else {
            dtypeRejects.putIfAbsent(to, why);
            judgeProbe(probe, why, d.getKey() + " inputs as " + to, device, rejecters, rejectedSeen, t0);
          }
        }
      }
    }
    Map<String, Set<String>> layouts = new LinkedHashMap<>();
    List<String> lines = new ArrayList<>();
    if (!spec.domain().describe().isEmpty()) {
      lines.add("declared in the spec: " + spec.domain().describe());
    }
    for (Map.Entry<String, Map<String, String>> r : layoutRejects.entrySet()) {
      Set<String> out = new LinkedHashSet<>(r.getValue().keySet());
      out.removeAll(layoutAccepts.getOrDefault(r.getKey(), Set.of()));
      if (out.isEmpty()) {
        continue;
      }
      layouts.put(r.getKey(), out);
      // a storage offset keeps a tensor contiguous, so a kernel that checks is_contiguous() accepts it
      boolean onlyContiguous = Set.of("offset").containsAll(layoutAccepts.getOrDefault(r.getKey(), Set.of()));
      String first = r.getValue().get(out.iterator().next());
      lines.add((onlyContiguous ? "accepts only contiguous '" + r.getKey() + "'" : "'" + r.getKey() + "' in some layouts only")
          + " (rejects it " + String.join(", ", out) + ": \"" + first + "\")");
    }
    Set<String> dtypes = new LinkedHashSet<>(dtypeRejects.keySet());
    dtypes.removeAll(dtypeAccepts);
    if (!dtypes.isEmpty()) {
      String first = dtypeRejects.get(dtypes.iterator().next());
      lines.add("rejects " + String.join(", ", dtypes) + " inputs (\"" + first + "\")");
    }
    return new Discovery(layouts, dtypes, lines);
  }

  private void judgeProbe(Example probe, String why, String what, Device device, List<RejectionCheck> rejecters,
      Map<RejectionCheck, Integer> rejectedSeen, long t0) {
    for (RejectionCheck r : List.copyOf(rejecters)) {
      Verdict v = onRejected(r, probe, device, why);
      rejectedSeen.merge(r, 1, Integer::sum);
      if (v.outcome() == Outcome.FAILED || v.outcome() == Outcome.ERRORED) {
        List<Fact> facts = new ArrayList<>(v.facts().stream().filter(f -> !f.key().equals("hint")).toList());
        facts.add(Fact.of("example", probe.ref() + " with " + what + "  " + describe(probe, device)));
        facts.add(Fact.of("minimal example", "the example itself with one change (a probe of the op's domain)"));
        facts.add(Fact.of("seed", plan.seed()));
        facts.add(Fact.of("rerun", rerun(r, device)));
        v.facts().stream().filter(f -> f.key().equals("hint")).findFirst().ifPresent(facts::add);
        sink.accept(Runner.result(op.name(), r, device.label(), "probe of " + probe.ref(),
            new Verdict(v.outcome(), facts), ms(t0), strict));
        rejecters.remove(r);
      }
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

  /**
   * Shrinks a finding and reports it. A shrunk input counts only if it gives a finding of the same
   * cause ({@link Verdict#cause()}): a shrink never turns one defect into another.
   */
  private void report(Check c, Device device, ExampleGenerator gen, Example first, List<Long> sequence,
      Function<Example, Verdict> judge, Verdict original, String tryLabel, long t0) {
    String cause = original.cause();
    Outcome kind = original.outcome();
    Predicate<Choices> fails = keepsCause(gen, judge, original);
    Shrinker.Result shrunk = new Shrinker(fails, SHRINK_BUDGET).shrink(sequence);
    Example minimal = gen.generate(Choices.replay(shrunk.sequence()));
    Verdict v = judge.apply(minimal);
    if (v.outcome() != kind || !v.cause().equals(cause)) {
      v = original;
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
    facts.add(Fact.of("rerun", rerun(c, device)));
    v.facts().stream().filter(f -> f.key().equals("hint")).findFirst().ifPresent(facts::add);
    sink.accept(Runner.result(op.name(), c, device.label(), "generated from " + first.ref(),
        new Verdict(kind, facts), ms(t0), strict));
  }

  /** Whether the input the choices describe gives a finding of the same outcome and cause as {@code original}. */
  static Predicate<Choices> keepsCause(ExampleGenerator gen, Function<Example, Verdict> judge, Verdict original) {
    return replay -> {
      Verdict v = judge.apply(gen.generate(replay));
      return v.outcome() == original.outcome() && v.cause().equals(original.cause());
    };
  }

  private String rerun(Check c, Device device) {
    return "./opcheck check " + target.source() + " --op " + op.name() + " --check " + c.id()
        + " --device " + device.label() + " --seed " + plan.seed() + " --tries " + plan.tries();
  }

  private String describe(Example e, Device device) {
    try {
      return Materializer.bind(op, e, device, plan.seed()).description();
    } catch (ExampleException ex) {
      return "(cannot be materialized: " + ex.getMessage() + ")";
    }
  }

  /** Null when the real kernel runs on {@code e}; else the first line of what it raised. */
  private String rejection(Example e, Device device) {
    try {
      OpCall.call(subject(e, device), Materializer.bind(op, e, device, plan.seed()));
      return null;
    } catch (ExampleException ex) {
      return "cannot be materialized: " + ex.getMessage();
    } catch (OpCall.KernelError ex) {
      return ex.getMessage();
    }
  }

  private Verdict onRejected(RejectionCheck r, Example e, Device device, String why) {
    try {
      return r.onRejected(subject(e, device), why);
    } catch (Exception | LinkageError | AssertionError ex) {
      return Verdict.errored(ex.getClass().getSimpleName() + ": " + ex.getMessage());
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
