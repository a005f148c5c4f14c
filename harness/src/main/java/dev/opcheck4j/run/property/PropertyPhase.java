package dev.opcheck4j.run.property;

import dev.opcheck4j.run.Prerequisites;
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
 * shrink steps, the seed and what reproduces it; a check that never fails gets one passed result. Gradient
 * checks use a tenth of the tries (at least 3).
 *
 * <p>Generation and shrinking are pure Java and run here, in the parent; the kernel is called only
 * through {@link #rejection}, {@link #onRejected} and {@link #evaluate}, each a unit sent to the op's
 * worker. A generated input that kills the worker is shrunk to a minimal one that still does and
 * reported by the supervisor check that covers how it died (each kind of death once per device);
 * the other checks keep getting generated inputs until the op has used up its deaths ({@link
 * OpUnits#MAX_DEATHS}), and a check that lost tries to a stop says how many. While shrinking another
 * finding, a call that kills the worker does not reproduce it. Each result's duration is the time of
 * its own calls.
 */
public final class PropertyPhase {
  public static final int SHRINK_BUDGET = 300;
  /** Rejected tries whose cause is looked for by putting back one argument at a time. */
  public static final int BLAME_BUDGET = 10;
  /** Each death costs a new worker (seconds): shrinking a crash gets fewer steps. */
  public static final int DEATH_SHRINK_BUDGET = 24;
  /** Candidates that kill the worker while another finding is shrunk: past these, the shrink ends where it is. */
  public static final int SHRINK_DEATHS = 8;
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

  /** A call that killed the worker: the check whose call it was, or null for the kernel call of a try or probe. */
  private static final class Died extends RuntimeException {
    final transient KernelDeath death;
    final String check;

    Died(KernelDeath death, String check) {
      super(death.getMessage(), null, false, false);
      this.death = death;
      this.check = check;
    }
  }

  /** What the probes found out of domain: per tensor label the layouts, and the dtypes, with why. */
  private record Discovery(Map<String, Set<String>> layouts, Set<String> dtypes, List<String> lines) {}

  /** Runs the tries on {@code device} for the checks whose example results were all passed. */
  public void run(Device device, Prerequisites examplePhase) {
    List<Check> open = new ArrayList<>();
    List<GenerationCheck> judges = new ArrayList<>();
    List<RejectionCheck> rejecters = new ArrayList<>();
    for (Check c : plan.checks()) {
      if (!c.info().generated() || !c.appliesTo(device) || spec.skipReason(c.id()).isPresent()) {
        continue;
      }
      if (c.scope() == CheckInfo.Scope.GENERATED) {
        String unmet = examplePhase.unmet(c, device);
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
      Outcome before = examplePhase.of(c.id(), device);
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
    if (units.stopped().isPresent()) {
      // the op used up its deaths on an earlier device: the rest of it is skipped, probes too
      for (Check c : starting) {
        emit(c, device, where, units.stopped().get(), 0, null);
      }
      return;
    }
    List<ExampleGenerator> plain = new ArrayList<>();
    for (Example ex : spec.examples()) {
      plain.add(new ExampleGenerator(op.schema(), ex, spec.vary(), spec.domain(), Map.of(), Set.of()));
    }
    Map<RejectionCheck, Integer> rejectedSeen = new LinkedHashMap<>();
    Deaths deaths = new Deaths(device, open, rejecters);
    Discovery found = discover(plain, device, rejecters, rejectedSeen, deaths);
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
    List<Generated> made = new ArrayList<>();
    int t = 0;
    batches:
    while (t < plan.tries() && more && units.stopped().isEmpty()) {
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
        if (!more || units.stopped().isPresent()) {
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
          // the op's other checks keep getting generated inputs, up to its deaths (OpUnits.MAX_DEATHS)
          deaths.died(d, gen, e, sequence, tryLabel, t + 1);
        }
        more = !open.isEmpty() || !judges.isEmpty() || !rejecters.isEmpty();
      }
    }
    // generation stopped before the last try: the op used up its deaths
    Cut stopped = units.stopped().isPresent() && t < plan.tries()
        ? new Cut(t, "the op killed its worker " + units.deaths() + " times (see " + BuiltinChecks.supervisors() + ")")
        : null;
    for (Check c : starting) {
      Cut cut = deaths.cut.getOrDefault(c, stopped);
      if (c instanceof GenerationCheck || !open.contains(c) && !rejecters.contains(c) && !deaths.cut.containsKey(c)) {
        continue; // judged below; or failed, and reported where it failed
      }
      if (c instanceof RejectionCheck r) {
        int n = rejectedSeen.getOrDefault(r, 0);
        Verdict v = deaths.cut.containsKey(c) ? Verdict.skipped(ownDeath(cut, device, n + " rejected inputs judged"))
            : n == 0 && cut != null ? Verdict.skipped(before(cut, device))
            : n == 0
                ? Verdict.skipped("the " + device.label() + " kernel rejected none of the generated inputs: nothing to judge")
                : Verdict.passed(withCut(cut, Fact.of("rejected inputs judged", n), Fact.of("seed", plan.seed())));
        sink.result(emitted(r, device, where, v, micros(r.id()), null).withExample(generatedSummary(cut)));
        continue;
      }
      // a gradient check whose share of the tries was done before generation stopped lost none
      if (cut == stopped && c.family().equals("gradcheck") && accepted >= gradTries) {
        cut = null;
      }
      int n = checked.getOrDefault(c.id(), 0);
      int k = skipped.getOrDefault(c.id(), 0);
      // its own call killed the worker: that is its finding (kernel.crash names it), never a pass
      Verdict v = deaths.cut.containsKey(c) ? Verdict.skipped(ownDeath(cut, device, n + " inputs checked"))
          : n == 0 && cut != null
          ? Verdict.skipped(before(cut, device))
          : n == 0 && k > 0
          ? Verdict.skipped("on every generated input (" + k + "): " + skipReason.get(c.id()))
          : n == 0
              ? Verdict.skipped("no generated input reached this check: the " + device.label() + " kernel rejected"
                  + " all " + discarded + " tries (see generate.domain)")
          : k == 0
              ? Verdict.passed(withCut(cut, Fact.of("inputs checked", n), Fact.of("seed", plan.seed())))
              : Verdict.passed(withCut(cut, Fact.of("inputs checked", n), Fact.of("skipped on", k + " more (first reason: "
                  + skipReason.get(c.id()) + ")"), Fact.of("seed", plan.seed())));
      sink.result(emitted(c, device, where, v, micros(c.id()), null).withExample(generatedSummary(cut)));
    }
    int tried = stopped != null ? t : plan.tries();
    String top = messages.entrySet().stream().max(Map.Entry.comparingByValue())
        .map(m -> "\"" + firstMessage.get(m.getKey()) + "\" (" + m.getValue() + " of " + tried + " tries)").orElse("");
    int blameTotal = Math.min(BLAME_BUDGET, discarded);
    String blame = blamed.entrySet().stream().max(Map.Entry.comparingByValue())
        .map(b -> "'" + b.getKey() + "': with the example's value back, the kernel accepted " + b.getValue() + " of "
            + blameTotal + " rejected tries looked at").orElse(discarded > 0 ? "no single argument (each put back alone was still rejected)" : "");
    GenerationStats stats = new GenerationStats(tried, accepted, discarded, found.lines(), top, blame);
    for (GenerationCheck g : judges) {
      long t0 = System.nanoTime();
      Verdict v = tried == 0 ? Verdict.skipped(before(stopped, device))
          : g.judge(new Subject(null, null, spec, device, null, plan.seed()), stats);
      if (stopped != null && v.outcome() != Outcome.SKIPPED) {
        v = shownWith(v, withCut(stopped));
      }
      sink.result(emitted(g, device, where, v, micros(PROBES) + (System.nanoTime() - t0) / 1_000, null)
          .withExample(generatedSummary(stopped)));
    }
  }

  /**
   * Generation stopped for a check before the run's last try.
   *
   * @param tries how many tries were made before it stopped (the one that stopped it included)
   * @param why why, as shown
   */
  private record Cut(int tries, String why) {}

  /** The reason of a check that generation stopped for before any input reached it. */
  private String before(Cut cut, Device device) {
    return "generation on " + device.label() + " stopped after " + cut.tries() + " of " + plan.tries()
        + " tries, before an input reached this check: " + cut.why();
  }

  /** The reason of a check whose own call killed the worker: its finding is the supervisor's, never a pass. */
  private String ownDeath(Cut cut, Device device, String before) {
    return "generation on " + device.label() + " stopped for this check after " + cut.tries() + " of " + plan.tries()
        + " tries (" + before + "): " + cut.why();
  }

  /** {@code facts}, and what a stop of generation cost the check, when it stopped early. */
  private List<Fact> withCut(Cut cut, Fact... facts) {
    List<Fact> all = new ArrayList<>(List.of(facts));
    if (cut != null) {
      all.add(all.size() - (all.isEmpty() ? 0 : 1), Fact.of("generation stopped", "after " + cut.tries() + " of "
          + plan.tries() + " tries, " + (plan.tries() - cut.tries()) + " not run: " + cut.why()));
    }
    return all;
  }

  /** All generated inputs of this op and device, from every example; the tries made, when {@code cut} stopped them early. */
  private ExampleRef generatedSummary(Cut cut) {
    String from = " tries from " + spec.examples().size() + (spec.examples().size() == 1 ? " example" : " examples");
    return cut == null ? new ExampleRef(null, true, null, plan.seed(), plan.tries() + from)
        : new ExampleRef(null, true, null, plan.seed(), cut.tries() + " of " + plan.tries() + from, cut.tries());
  }

  /**
   * The worker deaths of generation on one device. Each kind of death (what was running, and how it
   * died) is shrunk and reported once; a check whose own call killed the worker stops there, the
   * others go on.
   */
  private final class Deaths {
    final Device device;
    final List<Check> open;
    final List<RejectionCheck> rejecters;
    /** Checks stopped by a death in their own call: when, and why. */
    final Map<Check, Cut> cut = new LinkedHashMap<>();
    private final Set<String> reported = new java.util.HashSet<>();

    Deaths(Device device, List<Check> open, List<RejectionCheck> rejecters) {
      this.device = device;
      this.open = open;
      this.rejecters = rejecters;
    }

    /**
     * A call killed the worker on {@code first} (made from {@code sequence} by {@code gen}; null gen: a
     * probe of the domain, which is its own minimal example), after {@code tries} tries.
     */
    void died(Died d, ExampleGenerator gen, Example first, List<Long> sequence, String label, int tries) {
      if (reported.add(d.check + " " + d.death.death().kind())) {
        reportDeath(d, device, gen, first, sequence, label, open);
      }
      if (d.check == null) {
        return;
      }
      List<Check> running = new ArrayList<>(open);
      running.addAll(rejecters);
      for (Check c : running) {
        if (c.id().equals(d.check)) {
          open.remove(c);
          rejecters.remove(c);
          cut.put(c, new Cut(tries, "its own call killed the worker on " + label + " (see "
              + BuiltinChecks.supervising(d.death.death()).id() + ")"));
        }
      }
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
        return again.death().sameAs(d.death.death()); // a crash never shrinks into a timeout
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
      Map<RejectionCheck, Integer> rejectedSeen, Deaths deaths) {
    Map<String, Map<String, String>> layoutRejects = new LinkedHashMap<>();
    Map<String, Set<String>> layoutAccepts = new LinkedHashMap<>();
    Map<String, String> dtypeRejects = new LinkedHashMap<>();
    Set<String> dtypeAccepts = new LinkedHashSet<>();
    // what killed the worker on some example: never generated
    Map<String, Set<String>> layoutKills = new LinkedHashMap<>();
    Set<String> dtypeKills = new LinkedHashSet<>();
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
      // every probe of this example in one exchange, the rejected ones judged after; after a probe that
      // killed the worker, the probes after it in a new one
      for (int from = 0; from < probes.size() && units.stopped().isEmpty(); ) {
        List<DomainProbe> batch = probes.subList(from, probes.size());
        Probed result = probe(batch.stream().map(DomainProbe::example).toList(), device);
        judgeProbes(batch, result, device, rejecters, rejectedSeen, deaths, gen, layoutAccepts, layoutRejects,
            dtypeAccepts, dtypeRejects);
        if (result.died() == null) {
          break;
        }
        DomainProbe fatal = batch.get(Math.min(result.rejections().size(), batch.size() - 1));
        String what = fatal.layout() != null ? "'" + fatal.argument() + "' " + fatal.layout()
            : fatal.argument() + " inputs as " + fatal.dtype();
        // the probe it died on is the minimal example: the spec's example with the one change that kills it
        deaths.died(result.died(), null, fatal.example(), List.of(),
            "a probe of the op's domain: " + what, 0);
        if (fatal.layout() != null) {
          layoutKills.computeIfAbsent(fatal.argument(), k -> new LinkedHashSet<>()).add(fatal.layout());
        } else {
          dtypeKills.add(fatal.dtype());
        }
        from += result.rejections().size() + 1;
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
    for (Map.Entry<String, Set<String>> k : layoutKills.entrySet()) {
      layouts.computeIfAbsent(k.getKey(), x -> new LinkedHashSet<>()).addAll(k.getValue());
      lines.add("'" + k.getKey() + "' " + String.join(", ", k.getValue()) + " killed the worker (see "
          + BuiltinChecks.supervisors() + "): not generated");
    }
    if (!dtypeKills.isEmpty()) {
      dtypes.addAll(dtypeKills);
      lines.add(String.join(", ", dtypeKills) + " inputs killed the worker (see " + BuiltinChecks.supervisors()
          + "): not generated");
    }
    return new Discovery(layouts, dtypes, lines);
  }

  /** What one exchange of domain probes ({@code batch}) found: accepted and rejected layouts and dtypes. */
  private void judgeProbes(List<DomainProbe> batch, Probed result, Device device, List<RejectionCheck> rejecters,
      Map<RejectionCheck, Integer> rejectedSeen, Deaths deaths, ExampleGenerator gen,
      Map<String, Set<String>> layoutAccepts, Map<String, Map<String, String>> layoutRejects, Set<String> dtypeAccepts,
      Map<String, String> dtypeRejects) {
    for (int i = 0; i < result.rejections().size(); i++) {
      DomainProbe p = batch.get(i);
      String why = result.rejections().get(i);
      if (p.layout() != null && why == null) {
        layoutAccepts.computeIfAbsent(p.argument(), k -> new LinkedHashSet<>()).add(p.layout());
      } else if (p.layout() != null) {
        layoutRejects.computeIfAbsent(p.argument(), k -> new LinkedHashMap<>()).putIfAbsent(p.layout(), why);
        judgeProbe(p.example(), why, "'" + p.argument() + "' " + p.layout(), device, rejecters, rejectedSeen, deaths);
      } else if (why == null) {
        dtypeAccepts.add(p.dtype());
      } else {
        dtypeRejects.putIfAbsent(p.dtype(), why);
        if (!gen.beyondFamily(p.dtype())) {
          // a kernel that refuses bool or integer inputs of a floating-point op is its domain, not a
          // rejection to weigh against its meta kernel: only the family's probes are judged
          judgeProbe(p.example(), why, p.argument() + " inputs as " + p.dtype(), device, rejecters, rejectedSeen, deaths);
        }
      }
    }
  }

  private void judgeProbe(Example probe, String why, String what, Device device, List<RejectionCheck> rejecters,
      Map<RejectionCheck, Integer> rejectedSeen, Deaths deaths) {
    for (RejectionCheck r : List.copyOf(rejecters)) {
      if (units.stopped().isPresent()) {
        return;
      }
      Verdict v;
      try {
        v = onRejected(r, probe, device, why);
      } catch (Died d) {
        deaths.died(d, null, probe, List.of(), "a probe of the op's domain: " + what, 0);
        continue;
      }
      rejectedSeen.merge(r, 1, Integer::sum);
      if (v.outcome() == Outcome.FAILED || v.outcome() == Outcome.ERRORED) {
        String text = describe(probe, device);
        List<Fact> context = List.of(
            Fact.of("example", probe.ref() + " with " + what + "  " + text),
            Fact.of("minimal example", "the example itself with one change (a probe of the op's domain)"),
            Fact.of("seed", plan.seed()));
        sink.result(emitted(r, device, "probe of " + probe.ref(), shownWith(v, context), micros(r.id()),
            repro(r, device, probe, text)));
        rejecters.remove(r);
      }
    }
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
      v = null; // a minimal example that kills the worker does not show this finding
    }
    if (v == null || !v.sameFailure(original)) {
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
            repro(c, device, first, firstText))
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
   * {@code original}. A call that kills the worker reproduces only a finding whose cause is that
   * death (a crash, or a timeout): a value, metadata or contract finding is never "still failing" on
   * an input the kernel does not survive, or its minimal example would be the crash's.
   */
  public static Predicate<Choices> keepsCause(ExampleGenerator gen, Function<Example, Verdict> judge, Verdict original) {
    int[] deathsLeft = {SHRINK_DEATHS};
    return replay -> {
      if (deathsLeft[0] <= 0) {
        return false; // each death costs a new worker: past the budget, the shrink ends where it is
      }
      Verdict v;
      try {
        v = judge.apply(gen.generate(replay));
      } catch (Died d) {
        deathsLeft[0]--;
        return original.finding() != null && d.death.death().sameAs(original.finding().cause());
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
