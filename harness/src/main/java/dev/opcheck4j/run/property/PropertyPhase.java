package dev.opcheck4j.run.property;

import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.run.worker.KernelDeath;
import dev.opcheck4j.run.worker.Kernels;
import dev.opcheck4j.run.worker.OpUnits;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ExampleRef;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.Repro;
import dev.opcheck4j.api.Rerun;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.GenerationCheck;
import dev.opcheck4j.checks.GenerationStats;
import dev.opcheck4j.checks.RejectionCheck;
import dev.opcheck4j.checks.Subject;
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
 * <p>Generation and shrinking are pure Java and run here, in the parent; the kernel is called only
 * through {@link #rejection}, {@link #onRejected} and {@link #evaluate}, each a unit sent to the op's
 * worker. A call that kills the worker counts as "still fails" while shrinking; a generated input
 * that kills it is shrunk to a minimal one that still does, reported by the supervisor check that
 * covers how it died, and ends generation on that device. Each result's duration is the time
 * of its own calls.
 */
public final class PropertyPhase {
  public static final int SHRINK_BUDGET = 300;
  /** Rejected tries whose cause is looked for by putting back one argument at a time. */
  public static final int BLAME_BUDGET = 10;
  /** Each death costs a new worker (seconds): shrinking a crash gets fewer steps. */
  public static final int DEATH_SHRINK_BUDGET = 24;
  /** Generated inputs per exchange with the worker. */
  static final int BATCH = 20;
  /** Time spent in rejection probes, for generate-scope results. */
  private static final String PROBES = "";

  private final RunPlan plan;
  private final OpUnits units;
  private final OpSpec spec;
  private final LibraryInfo.Op op;
  private final RunListener sink;
  private final Map<String, Long> nanos = new HashMap<>();

  public PropertyPhase(RunPlan plan, OpUnits units, OpSpec spec, LibraryInfo.Op op, RunListener sink) {
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
    /** The domain probe the kernel died on (the example with one change), or null. */
    final transient Example probe;
    /** What that probe changed ("x as bool"), or null. */
    final String change;

    Died(KernelDeath death, String check) {
      this(death, check, null, null);
    }

    private Died(KernelDeath death, String check, Example probe, String change) {
      super(death.getMessage(), null, false, false);
      this.death = death;
      this.check = check;
      this.probe = probe;
      this.change = change;
    }

    Died onProbe(Example example, String what) {
      return new Died(death, check, example, what);
    }
  }

  /** What the probes found out of domain: per tensor label the layouts, and the dtypes, with why. */
  private record Discovery(Map<String, Set<String>> layouts, Set<String> dtypes, List<String> lines) {}

  /** Runs the tries on {@code device} for the checks whose example results were all passed. */
  public void run(Device device, Map<String, Outcome> examplePhase) {
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
          sink.unitStarted(new RunListener.UnitEvent(op.name(), c.id(), device.label(), "generated", java.time.Instant.now()));
          emit(c, device, "generated", Verdict.skipped(unmet), 0, null);
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
    String where = "generated (" + plan.tries() + " tries)";
    List<Check> starting = new ArrayList<>(open);
    starting.addAll(rejecters);
    starting.addAll(judges);
    for (Check c : starting) {
      sink.unitStarted(new RunListener.UnitEvent(op.name(), c.id(), device.label(), where, java.time.Instant.now()));
    }
    List<ExampleGenerator> plain = new ArrayList<>();
    for (Example ex : spec.examples()) {
      plain.add(new ExampleGenerator(op.schema(), ex, spec.vary(), spec.domain(), Map.of(), Set.of()));
    }
    Map<RejectionCheck, Integer> rejectedSeen = new LinkedHashMap<>();
    Discovery found;
    try {
      found = discover(plain, device, rejecters, rejectedSeen);
    } catch (Died d) {
      // the probe it died on is the minimal example: the spec's example with the one change that kills it
      reportDeath(d, device, null, d.probe != null ? d.probe : spec.examples().get(0), List.of(),
          "a probe of the op's domain" + (d.change != null ? ": " + d.change : ""), open);
      skipAll(open, judges, rejecters, device, where);
      return;
    }
    List<ExampleGenerator> generators = plain.stream().map(g -> g.excluding(found.layouts(), found.dtypes())).toList();
    SplittableRandom seeds = new SplittableRandom(plan.seed() ^ (op.name().hashCode() * 0x9E3779B97F4A7C15L) ^ device.ordinal());
    int gradTries = Math.max(3, plan.tries() / 10);
    Map<String, Integer> checked = new LinkedHashMap<>();
    // a check that said Skipped on a try did not check it: its first reason, and how many
    Map<String, String> skipReason = new LinkedHashMap<>();
    Map<String, Integer> skipped = new LinkedHashMap<>();
    Map<String, Integer> messages = new TreeMap<>();
    Map<String, String> firstMessage = new LinkedHashMap<>();
    Map<String, Integer> blamed = new TreeMap<>();
    int blameLeft = BLAME_BUDGET;
    int accepted = 0;
    int discarded = 0;
    boolean more = true;
    Died died = null;
    List<Generated> made = new ArrayList<>();
    int t = 0;
    batches:
    while (t < plan.tries() && more && died == null && units.stopped().isEmpty()) {
      List<Check> candidates = new ArrayList<>();
      for (Check c : open) {
        if (!c.family().equals("gradcheck") || accepted < gradTries) {
          candidates.add(c);
        }
      }
      // Several tries in one exchange with the worker, each its kernel call and every open check on it.
      // Taken in order, they give what one try at a time gives: a check that fails on a try ignores
      // its verdicts on the later ones, and while gradcheck is open a batch holds only the tries that
      // would still get it.
      boolean gradients = candidates.stream().anyMatch(c -> c.family().equals("gradcheck"));
      int size = Math.min(plan.tries() - t, gradients ? gradTries - accepted : BATCH);
      while (made.size() < t + size) {
        int n = made.size();
        ExampleGenerator gen = generators.get(n % generators.size());
        int round = n / generators.size();
        List<Map.Entry<String, List<Long>>> edges = List.copyOf(gen.edgeCases().entrySet());
        Choices choices = round < edges.size() ? Choices.replay(edges.get(round).getValue()) : Choices.random(seeds.nextLong());
        made.add(new Generated(gen, gen.generate(choices), choices.sequence(),
            "try " + n + (round < edges.size() ? " (edge case: " + edges.get(round).getKey() + ")" : "")));
      }
      List<Generated> batch = made.subList(t, t + size);
      List<Tried> results = tryOn(batch.stream().map(Generated::example).toList(), device, candidates);
      for (int j = 0; j < results.size(); j++, t++) {
        if (!more || died != null || units.stopped().isPresent()) {
          break batches;
        }
        Generated g = batch.get(j);
        ExampleGenerator gen = g.gen();
        Example e = g.example();
        List<Long> sequence = g.sequence();
        String tryLabel = g.label();
        Tried tried = results.get(j);
        if (tried.died() != null && tried.died().check != null
            && candidates.stream().noneMatch(c -> c.id().equals(tried.died().check) && open.contains(c))) {
          // it died in a check that failed on an earlier try of this batch: one try at a time, that
          // check would not have run here, so this try runs again without it
          units.forgiveDeath();
          continue batches;
        }
        try {
          if (!tried.reached()) {
            throw tried.died();
          }
          String rejected = tried.rejected();
          if (rejected != null) {
            discarded++;
            String cause = new Cause.Rejection(rejected).shape();
            messages.merge(cause, 1, Integer::sum);
            firstMessage.putIfAbsent(cause, rejected);
            if (blameLeft > 0) {
              blameLeft--;
              List<String> changed = gen.changedArguments(e);
              Probed back = probe(changed.stream().map(arg -> gen.revert(e, arg)).toList(), device);
              for (int i = 0; i < back.rejections().size(); i++) {
                if (back.rejections().get(i) == null) {
                  blamed.merge(changed.get(i), 1, Integer::sum);
                }
              }
              if (back.died() != null) {
                throw back.died();
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
                report(r, device, gen, e, sequence, judge, v, t, tryLabel);
                rejecters.remove(r);
              }
            }
          } else {
            accepted++;
            for (int i = 0; i < tried.verdicts().size(); i++) {
              Check c = candidates.get(i);
              if (!open.contains(c)) {
                continue; // failed on an earlier try of this batch
              }
              Verdict v = tried.verdicts().get(i);
              if (v.outcome() == Outcome.SKIPPED) {
                skipped.merge(c.id(), 1, Integer::sum);
                skipReason.putIfAbsent(c.id(), v.facts().stream().filter(f -> f.key().equals("reason"))
                    .map(Fact::value).findFirst().orElse("(no reason given)"));
                continue;
              }
              checked.merge(c.id(), 1, Integer::sum);
              if (v.outcome() == Outcome.FAILED || v.outcome() == Outcome.ERRORED) {
                report(c, device, gen, e, sequence, x -> judge(c, x, device), v, t, tryLabel);
                open.remove(c);
              }
            }
            if (tried.died() != null) {
              throw tried.died();
            }
          }
        } catch (Died d) {
          died = d;
          reportDeath(d, device, gen, e, sequence, tryLabel, open);
        }
        more = !open.isEmpty() || !judges.isEmpty() || !rejecters.isEmpty();
      }
    }
    if (died != null || units.stopped().isPresent()) {
      skipAll(open, judges, rejecters, device, where);
      return;
    }
    for (Check c : open) {
      int n = checked.getOrDefault(c.id(), 0);
      int k = skipped.getOrDefault(c.id(), 0);
      Verdict v = n == 0 && k > 0
          ? Verdict.skipped("on every generated input (" + k + "): " + skipReason.get(c.id()))
          : n == 0
              ? Verdict.skipped("no generated input reached this check: the " + device.label() + " kernel rejected"
                  + " all " + discarded + " tries (see generate.domain)")
          : k == 0
              ? Verdict.passed(Fact.of("inputs checked", n), Fact.of("seed", plan.seed()))
              : Verdict.passed(Fact.of("inputs checked", n), Fact.of("skipped on", k + " more (first reason: "
                  + skipReason.get(c.id()) + ")"), Fact.of("seed", plan.seed()));
      sink.result(emitted(c, device, where, v, micros(c.id()), null).withExample(generatedSummary()));
    }
    for (RejectionCheck r : rejecters) {
      int n = rejectedSeen.getOrDefault(r, 0);
      Verdict v = n == 0
          ? Verdict.skipped("the " + device.label() + " kernel rejected none of the generated inputs: nothing to judge")
          : Verdict.passed(Fact.of("rejected inputs judged", n), Fact.of("seed", plan.seed()));
      sink.result(emitted(r, device, where, v, micros(r.id()), null).withExample(generatedSummary()));
    }
    String top = messages.entrySet().stream().max(Map.Entry.comparingByValue())
        .map(m -> "\"" + firstMessage.get(m.getKey()) + "\" (" + m.getValue() + " of " + plan.tries() + " tries)").orElse("");
    int blameTotal = Math.min(BLAME_BUDGET, discarded);
    String blame = blamed.entrySet().stream().max(Map.Entry.comparingByValue())
        .map(b -> "'" + b.getKey() + "': with the example's value back, the kernel accepted " + b.getValue() + " of "
            + blameTotal + " rejected tries looked at").orElse(discarded > 0 ? "no single argument (each put back alone was still rejected)" : "");
    GenerationStats stats = new GenerationStats(plan.tries(), accepted, discarded, found.lines(), top, blame);
    for (GenerationCheck g : judges) {
      long t0 = System.nanoTime();
      Verdict v = g.judge(new Subject(null, null, spec, device, null, plan.seed()), stats);
      sink.result(emitted(g, device, where, v, micros(PROBES) + (System.nanoTime() - t0) / 1_000, null)
          .withExample(generatedSummary()));
    }
  }

  /** All generated inputs of this op and device, from every example. */
  private ExampleRef generatedSummary() {
    return new ExampleRef(null, true, null, plan.seed(), plan.tries() + " tries from " + spec.examples().size()
        + (spec.examples().size() == 1 ? " example" : " examples"));
  }

  /** Generation on {@code device} stopped (a call killed the worker): what did not finish is Skipped. */
  private void skipAll(List<Check> open, List<GenerationCheck> judges, List<RejectionCheck> rejecters, Device device,
      String where) {
    Verdict v = Verdict.skipped("generation on " + device.label()
        + " stopped: a call killed the worker (see " + BuiltinChecks.supervisors() + ")");
    List<Check> left = new ArrayList<>(open);
    left.addAll(rejecters);
    left.addAll(judges);
    for (Check c : left) {
      emit(c, device, where, v, micros(c.id()), null);
    }
  }

  /** A generated input killed the worker: shrink it to a minimal one that still does, and report it. */
  private void reportDeath(Died d, Device device, ExampleGenerator gen, Example first, List<Long> sequence,
      String tryLabel, List<Check> open) {
    long t = System.nanoTime();
    Check during = open.stream().filter(c -> c.id().equals(d.check)).findFirst().orElse(null);
    Check running = d.check == null ? null : BuiltinChecks.byId(d.check).orElse(null);
    Predicate<Choices> dies = replay -> {
      try {
        units.tryOn(op.name(), device, gen.generate(replay), during == null ? List.of() : List.of(during.id()));
        return false;
      } catch (KernelDeath again) {
        return true;
      }
    };
    Example minimal = first;
    int steps = 0;
    if (gen != null) {
      units.counting(false);
      Shrinker.Result shrunk = new Shrinker(dies, DEATH_SHRINK_BUDGET).shrink(sequence);
      units.counting(true);
      minimal = gen.generate(Choices.replay(shrunk.sequence()));
      steps = shrunk.steps();
    }
    List<Fact> more = List.of(
        Fact.of("example", first.ref() + " (" + tryLabel + ")  " + describe(first, device)),
        Fact.of("minimal example", describe(minimal, device) + "  " + Shrinker.Result.shrunkIn(steps)));
    String doing = d.check == null ? "the real kernel on a generated input (before any check)" : d.check;
    sink.result(units.result(d.death, op.name(), running, doing, device, first, more, (System.nanoTime() - t) / 1_000));
  }

  /**
   * Probes the domain on every example: each tensor in each other layout generation could draw,
   * and each other dtype. A layout or dtype rejected on every example where it was probed is left
   * out of generation and reported once. Rejected probes are also shown to the rejection checks.
   */
  private Discovery discover(List<ExampleGenerator> gens, Device device, List<RejectionCheck> rejecters,
      Map<RejectionCheck, Integer> rejectedSeen) {
    Map<String, Map<String, String>> layoutRejects = new LinkedHashMap<>();
    Map<String, Set<String>> layoutAccepts = new LinkedHashMap<>();
    Map<String, String> dtypeRejects = new LinkedHashMap<>();
    Set<String> dtypeAccepts = new LinkedHashSet<>();
    for (ExampleGenerator gen : gens) {
      List<DomainProbe> probes = new ArrayList<>();
      for (Map.Entry<String, Integer> t : gen.tensorRanks().entrySet()) {
        for (String layout : gen.layoutsForRank(t.getValue())) {
          if (!layout.equals("contiguous")) {
            probes.add(new DomainProbe(gen.withLayout(t.getKey(), layout), t.getKey(), layout, null));
          }
        }
      }
      for (Map.Entry<String, List<String>> d : gen.otherDtypes().entrySet()) {
        for (String to : d.getValue()) {
          probes.add(new DomainProbe(gen.withDtype(d.getKey(), to), d.getKey(), null, to));
        }
      }
      // every probe of this example in one exchange; the rejected ones are judged after
      Probed result = probe(probes.stream().map(DomainProbe::example).toList(), device);
      for (int i = 0; i < result.rejections().size(); i++) {
        DomainProbe p = probes.get(i);
        String why = result.rejections().get(i);
        if (p.layout() != null && why == null) {
          layoutAccepts.computeIfAbsent(p.argument(), k -> new LinkedHashSet<>()).add(p.layout());
        } else if (p.layout() != null) {
          layoutRejects.computeIfAbsent(p.argument(), k -> new LinkedHashMap<>()).putIfAbsent(p.layout(), why);
          judgeProbe(p.example(), why, "'" + p.argument() + "' " + p.layout(), device, rejecters, rejectedSeen);
        } else if (why == null) {
          dtypeAccepts.add(p.dtype());
        } else {
          dtypeRejects.putIfAbsent(p.dtype(), why);
          if (!gen.beyondFamily(p.dtype())) {
            // a kernel that refuses bool or integer inputs of a floating-point op is its domain, not a
            // rejection to weigh against its meta kernel: only the family's probes are judged
            judgeProbe(p.example(), why, p.argument() + " inputs as " + p.dtype(), device, rejecters, rejectedSeen);
          }
        }
      }
      if (result.died() != null) {
        DomainProbe fatal = probes.get(Math.min(result.rejections().size(), probes.size() - 1));
        throw result.died().onProbe(fatal.example(), fatal.layout() != null
            ? "'" + fatal.argument() + "' " + fatal.layout() : fatal.argument() + " inputs as " + fatal.dtype());
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
      Map<RejectionCheck, Integer> rejectedSeen) {
    for (RejectionCheck r : List.copyOf(rejecters)) {
      Verdict v = onRejected(r, probe, device, why);
      rejectedSeen.merge(r, 1, Integer::sum);
      if (v.outcome() == Outcome.FAILED || v.outcome() == Outcome.ERRORED) {
        String text = describe(probe, device);
        List<Fact> context = List.of(
            Fact.of("example", probe.ref() + " with " + what + "  " + text),
            Fact.of("minimal example", "the example itself with one change (a probe of the op's domain)"),
            Fact.of("seed", plan.seed()));
        sink.result(emitted(r, device, "probe of " + probe.ref(), shownWith(v, context), micros(r.id()),
            repro(r, device, probe, text)).withRerun(Rerun.CLI));
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
   * cause ({@link Verdict#sameFailure}): a shrink never turns one defect into another.
   */
  private void report(Check c, Device device, ExampleGenerator gen, Example first, List<Long> sequence,
      Function<Example, Verdict> judge, Verdict original, int tryIndex, String tryLabel) {
    long t0 = System.nanoTime();
    long probesBefore = nanos.getOrDefault(PROBES, 0L);
    long checkBefore = nanos.getOrDefault(c.id(), 0L);
    Predicate<Choices> fails = keepsCause(gen, judge, original);
    units.counting(false);
    Shrinker.Result shrunk = new Shrinker(fails, SHRINK_BUDGET).shrink(sequence);
    units.counting(true);
    Example minimal = gen.generate(Choices.replay(shrunk.sequence()));
    Verdict v;
    try {
      v = judge.apply(minimal);
    } catch (Died d) {
      v = original;
    }
    if (!v.sameFailure(original)) {
      v = original;
      minimal = first;
    }
    String firstText = describe(first, device);
    List<Fact> context = List.of(
        Fact.of("example", first.ref() + " (" + tryLabel + ")  " + firstText),
        Fact.of("minimal example", describe(minimal, device) + "  " + Shrinker.Result.shrunkIn(shrunk.steps())),
        Fact.of("seed", plan.seed()));
    // the whole shrink is this check's time (its kernel calls were counted on the way; not twice)
    nanos.put(PROBES, probesBefore);
    nanos.put(c.id(), checkBefore + System.nanoTime() - t0);
    sink.result(emitted(c, device, "generated from " + first.ref(), shownWith(v, context), micros(c.id()),
            repro(c, device, first, firstText)).withRerun(Rerun.CLI)
        .withExample(new ExampleRef(first.ref(), true, tryIndex, plan.seed(), firstText)));
  }

  /**
   * {@code v} shown with {@code context} (the example, the minimal example, the seed) in place of its
   * own: for a finding between its details and its hint, else after its facts.
   */
  private static Verdict shownWith(Verdict v, List<Fact> context) {
    if (v.finding() != null) {
      return v.withContext(context);
    }
    List<Fact> facts = new ArrayList<>(v.facts());
    facts.addAll(context);
    return v.withContext(facts);
  }

  /** The result of {@code v} for check {@code c} on {@code device}, told to the listener. */
  private void emit(Check c, Device device, String where, Verdict v, long micros, Repro repro) {
    sink.result(emitted(c, device, where, v, micros, repro));
  }

  /** The result of {@code v} for check {@code c} on {@code device}; an errored one keeps {@code repro} too. */
  private CheckResult emitted(Check c, Device device, String where, Verdict v, long micros, Repro repro) {
    CheckResult r = v.result(op.name(), c, device.label(), where, micros, units.severity(), repro);
    return v.outcome() == Outcome.ERRORED && repro != null ? r.withFinding(null, repro) : r;
  }

  /** What reproduces a finding of {@code c} on a generated input from {@code example}. */
  private Repro repro(Check c, Device device, Example example, String description) {
    return units.repro(op.name(), c.id(), device, example, description, false);
  }

  /**
   * Whether the input the choices describe gives a finding of the same outcome and cause as
   * {@code original}; a call that kills the worker still fails.
   */
  public static Predicate<Choices> keepsCause(ExampleGenerator gen, Function<Example, Verdict> judge, Verdict original) {
    return replay -> {
      Verdict v;
      try {
        v = judge.apply(gen.generate(replay));
      } catch (Died d) {
        return true;
      }
      return v.sameFailure(original);
    };
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

  /** Null when the real kernel runs on {@code e}; else the first line of what it raised. A death propagates as {@link Died}. */
  private String rejection(Example e, Device device) {
    long t = System.nanoTime();
    try {
      return units.rejection(op.name(), device, e);
    } catch (KernelDeath d) {
      throw new Died(d, null);
    } finally {
      nanos.merge(PROBES, System.nanoTime() - t, Long::sum);
    }
  }

  private Verdict onRejected(RejectionCheck r, Example e, Device device, String why) {
    long t = System.nanoTime();
    try {
      return units.onRejected(r.id(), op.name(), device, e, why);
    } catch (KernelDeath d) {
      throw new Died(d, r.id());
    } finally {
      nanos.merge(r.id(), System.nanoTime() - t, Long::sum);
    }
  }

  /** A generated input: its generator, the example, the choices it was made from, and how results name it. */
  private record Generated(ExampleGenerator gen, Example example, List<Long> sequence, String label) {}

  /** A probe of the op's domain: the example with {@code argument} in another layout, or its inputs in another dtype. */
  private record DomainProbe(Example example, String argument, String layout, String dtype) {}

  /**
   * What one input gave in one exchange with the worker.
   *
   * @param reached whether the kernel call finished (false: it killed the worker, {@code died} says how)
   * @param rejected what the kernel raised on the input, null when it accepted it
   * @param verdicts the verdicts of the checks run on it, in order (none when it was rejected)
   * @param died the death that ended the exchange, or null
   */
  private record Tried(boolean reached, String rejected, List<Verdict> verdicts, Died died) {}

  /** The kernel on {@code e} and, when it accepts it, each of {@code checks}: one exchange. */
  private Tried tryOn(Example e, Device device, List<Check> checks) {
    return tryOn(List.of(e), device, checks).get(0);
  }

  /**
   * The kernel on each of {@code inputs} in turn and, on each it accepts, each of {@code checks}: one
   * exchange. One {@link Tried} per input up to the one a death ended, which is the last.
   */
  private List<Tried> tryOn(List<Example> inputs, Device device, List<Check> checks) {
    long t0 = System.nanoTime();
    List<Kernels.Done> done;
    KernelDeath death = null;
    try {
      done = units.tryOn(op.name(), device, inputs, checks.stream().map(Check::id).toList());
    } catch (KernelDeath d) {
      done = d.completed();
      death = d;
    }
    List<Tried> tried = new ArrayList<>();
    // whose time each unit run was (and the one in flight when it died), for account()
    List<String> keys = new ArrayList<>();
    int k = 0;
    for (int i = 0; i < inputs.size() && (k < done.size() || death != null); i++) {
      keys.add(PROBES);
      if (k == done.size()) {
        // it died in this input's kernel call
        tried.add(new Tried(false, null, List.of(), new Died(death, null)));
        break;
      }
      String rejected = OpUnits.rejection(done.get(k++));
      if (rejected != null) {
        tried.add(new Tried(true, rejected, List.of(), null));
        continue;
      }
      List<Verdict> verdicts = new ArrayList<>();
      while (verdicts.size() < checks.size() && k < done.size()) {
        keys.add(checks.get(verdicts.size()).id());
        verdicts.add(done.get(k++).verdict());
      }
      if (verdicts.size() < checks.size()) {
        // it died in the check after the last verdict
        String check = checks.get(verdicts.size()).id();
        keys.add(check);
        tried.add(new Tried(true, null, verdicts, new Died(death, check)));
        break;
      }
      tried.add(new Tried(true, null, verdicts, null));
    }
    account(keys, done, t0, death != null);
    return tried;
  }

  /** Kernel calls on several inputs in one exchange: per input finished, null or what it raised; and the death, or null. */
  private record Probed(List<String> rejections, Died died) {}

  private Probed probe(List<Example> inputs, Device device) {
    long t = System.nanoTime();
    List<Kernels.Done> done;
    Died died = null;
    try {
      done = units.accepts(op.name(), device, inputs);
    } catch (KernelDeath d) {
      done = d.completed();
      died = new Died(d, null);
    }
    account(java.util.Collections.nCopies(inputs.size(), PROBES), done, t, died != null);
    List<String> rejections = new ArrayList<>();
    done.forEach(x -> rejections.add(OpUnits.rejection(x)));
    return new Probed(rejections, died);
  }

  /**
   * Adds each finished unit's own time to its key ({@code keys} per unit) and, when the worker
   * {@code died}, what is left of the exchange since {@code t0} to the unit that was in flight.
   */
  private void account(List<String> keys, List<Kernels.Done> done, long t0, boolean died) {
    long own = 0;
    for (int i = 0; i < done.size(); i++) {
      long ns = done.get(i).micros() * 1_000;
      own += ns;
      nanos.merge(keys.get(i), ns, Long::sum);
    }
    if (died && done.size() < keys.size()) {
      nanos.merge(keys.get(done.size()), Math.max(0, System.nanoTime() - t0 - own), Long::sum);
    }
  }

  /** A value check's verdict on {@code x}: PASSED when the kernel rejects it (nothing to judge). A death propagates as {@link Died}. */
  private Verdict judge(Check c, Example x, Device device) {
    Tried tried = tryOn(x, device, List.of(c));
    if (tried.died() != null) {
      throw tried.died();
    }
    return tried.rejected() != null ? Verdict.passed() : tried.verdicts().get(0);
  }

  private long micros(String key) {
    return nanos.getOrDefault(key, 0L) / 1_000;
  }
}
