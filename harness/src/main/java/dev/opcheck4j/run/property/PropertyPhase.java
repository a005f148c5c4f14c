package dev.opcheck4j.run.property;

import dev.opcheck4j.run.session.Prerequisites;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.ExampleRef;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.GenerationCheck;
import dev.opcheck4j.checks.GenerationStats;
import dev.opcheck4j.checks.RejectionCheck;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.Shrinker;
import dev.opcheck4j.generate.example.SizeReach;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Generated inputs around each example. For each real device: the op's domain is probed ({@link DomainProbing});
 * then up to {@code tries} variants ({@link Tries}; they stop once they find no new ground, {@link NewGround}), each
 * checked by the value checks that passed on the examples (a budgeted one gets {@link CheckInfo#triesOf}). An
 * input the real kernel rejects is discarded, counted, and shown to the checks that judge rejected inputs. A
 * check's first failure is shrunk, keeping its cause ({@link FailureShrinker}), and reported with the original
 * and minimal example, the shrink steps, the seed and what reproduces it; a check that never fails gets one
 * result over all its inputs ({@link VerdictTally}). Each check's run on a device is one {@link GeneratedRun}.
 *
 * <p>Generation and shrinking are pure Java and run here, in the parent; the kernel is called only
 * through {@link OpCalls}, each call a unit sent to the op's worker. An input that kills the worker is
 * shrunk and reported by a supervisor check, each kind of death once per device ({@link Deaths}); the
 * other checks go on until the op has used up its deaths ({@link OpSession#MAX_DEATHS}), and a check that
 * lost tries to a stop says how many. Each result's duration is the time of its own calls ({@link
 * TimeLedger}).
 */
public final class PropertyPhase {
  /** Generated inputs per exchange with the worker. */
  static final int BATCH = 20;

  private final RunPlan plan;
  private final OpSession session;
  private final OpSpec spec;
  private final LibraryInfo.Op op;
  private final RunListener sink;
  private final TimeLedger ledger = new TimeLedger();
  private final OpCalls calls;
  private final FailureShrinker shrinker;
  private final DomainProbing probing;
  private final boolean allTries;

  /** {@code allTries}: whether every try is made ({@code --all-tries}), not only while they find new ground. */
  public PropertyPhase(RunPlan plan, OpSession session, OpSpec spec, LibraryInfo.Op op, RunListener sink,
      boolean allTries) {
    this.plan = plan;
    this.allTries = allTries;
    this.session = session;
    this.spec = spec;
    this.op = op;
    this.sink = sink;
    this.calls = new OpCalls(session, op.name(), ledger);
    this.shrinker = new FailureShrinker(session, calls);
    this.probing = new DomainProbing(spec, calls);
  }

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
          GeneratedRun.skipped(new GeneratedRun(session, op.name(), c, device, sink), unmet);
        } else if (c instanceof GenerationCheck g) {
          judges.add(g);
        } else if (c instanceof RejectionCheck r) {
          rejecters.add(r);
        }
        continue;
      }
      Outcome before = examplePhase.of(c.id(), device);
      if (before != null && before.passes()) {
        open.add(c);
      }
    }
    if (open.isEmpty() && judges.isEmpty() && rejecters.isEmpty() || spec.examples().isEmpty() || plan.tries() <= 0) {
      return;
    }
    String where = "generated (" + (allTries ? "" : "up to ") + plan.tries() + " tries)";
    Map<Check, GeneratedRun> runs = new java.util.LinkedHashMap<>();
    java.util.stream.Stream.of(open, rejecters, judges).flatMap(List::stream)
        .forEach(c -> runs.computeIfAbsent(c, x -> new GeneratedRun(session, op.name(), x, device, sink)).started(where));
    // when the op used up its deaths on an earlier device, the rest of it is skipped, probes too
    session.stopped().ifPresentOrElse(v -> runs.values().forEach(r -> r.report(where, v, 0, null)),
        () -> new OnDevice(device, where, open, judges, rejecters, runs).run());
  }

  /** Generation on one device: the probes, the tries, and a result for each check still open after them. */
  private final class OnDevice {
    final Device device;
    final String where;
    final List<Check> open;
    final List<GenerationCheck> judges;
    final List<RejectionCheck> rejecters;
    final Map<Check, GeneratedRun> runs;
    final VerdictTally tally;
    final Deaths deaths;
    final TiedSizes tiedSizes = new TiedSizes();
    final SizeReach reach = new SizeReach();
    final DeathPlaces deathPlaces;
    final CrashClasses crashClasses = new CrashClasses(op.schema().arguments().stream().map(a -> a.name()).toList());
    final NewGround ground = new NewGround(allTries);
    int t; // tries done

    OnDevice(Device device, String where, List<Check> open, List<GenerationCheck> judges,
        List<RejectionCheck> rejecters, Map<Check, GeneratedRun> runs) {
      this.device = device;
      this.where = where;
      this.open = open;
      this.judges = judges;
      this.rejecters = rejecters;
      this.runs = runs;
      this.tally = new VerdictTally(device.label(), plan.tries(), plan.seed());
      this.deaths = new Deaths(device, open, rejecters, session, op.name(), calls, shrinker, sink);
      this.deathPlaces = new DeathPlaces(device, session.deaths());
    }

    void run() {
      List<ExampleGenerator> plain = new ArrayList<>();
      for (Example ex : spec.examples()) {
        plain.add(new ExampleGenerator(op.schema(), ex, spec.vary(), spec.domain(), Map.of(), Set.of()));
      }
      DomainProbing.Discovery found = probing.discover(plain, device, deaths, this::judgeProbes);
      deathPlaces.probed(session.deaths());
      spec.examples().forEach(crashClasses::survived);
      plain.forEach(g -> reach.example(g.shapesOf(g.origin())));
      generate(new Tries(plain.stream().map(found::applied).toList(),
          new SplittableRandom(plan.seed() ^ (op.name().hashCode() * 0x9E3779B97F4A7C15L) ^ device.ordinal())));
      finish(java.util.stream.Stream.of(found.lines(), tiedSizes.lines(), crashClasses.lines(), ground.arcsLines())
          .flatMap(List::stream).toList());
    }

    private void generate(Tries tries) {
      boolean more = ground.feeds(tries);
      batches:
      while (t < plan.tries() && more && session.stopped().isEmpty() && !ground.stops(t)) {
        tiedSizes.learned(t).forEach(tries::tie);
        List<Check> candidates = tally.candidates(open, tries.edge(t));
        // Several tries in one exchange with the worker, each its kernel call and every open check on it.
        // Taken in order, they give what one try at a time gives: a check that fails on a try ignores
        // its verdicts on the later ones, and while a budgeted check is open a batch holds only the tries
        // that would still get it (and a size edge case past a share is a batch of its own: Tries#batch).
        int size = ground.batch(t, Math.min(plan.tries() - t, tally.withinShares(candidates, BATCH)));
        List<OpCalls.Trial<Tries.Generated>> results = calls.tryOn(tries.batch(t, size, tally.shareDone(open)),
            Tries.Generated::example, device, candidates);
        try (FollowUps<Tries.Generated> followUps = FollowUps.ofBatch(session, calls, results, rejecters,
            tally.discarded(), device)) {
          for (OpCalls.Trial<Tries.Generated> tried : results) {
            if (!more) {
              break batches;
            }
            Tries.Generated g = tried.input();
            Fate.Died<?> died = tried.died().orElse(null);
            if (died != null && died.check() != null
                && candidates.stream().noneMatch(c -> c.id().equals(died.check()) && open.contains(c))) {
              // it died in a check that failed on an earlier try of this batch: one try at a time, that
              // check would not have run here, so this try runs again without it
              session.forgive(died.death());
              continue batches;
            }
            Fate.Died<?> fatal = tried.kernel() instanceof Fate.Died<?> d ? d : null;
            reach.drew(g.gen().shapesOf(g.example()), fatal == null && tried.rejected() == null);
            if (fatal == null) {
              tiedSizes.saw(g, tried.rejected());
              if (died == null) {
                crashClasses.survived(g.example());
              }
              fatal = tried.rejected() != null ? rejected(g, tried.rejected(), followUps) : accepted(g, tried);
            }
            ground.made(candidates);
            t++;
            if (fatal != null) {
              deathPlaces.killedOn(g.label());
              // the op's other checks keep getting generated inputs, up to its deaths (OpSession.MAX_DEATHS)
              Example telling = deaths.died(fatal, g.gen(), g.example(), g.sequence(), g.label(), t);
              crashClasses.routeAround(tries, t, telling, BuiltinChecks.supervising(fatal.death().cause()).id(),
                  () -> calls.describe(telling, device));
            }
            more = !open.isEmpty() || !judges.isEmpty() || !rejecters.isEmpty();
          }
        }
      }
    }

    /**
     * A try the kernel rejected: counted, its cause looked for, and shown to the rejection checks; a death
     * ends it. What the batch's exchange of {@code followUps} holds for it is taken from there.
     */
    private Fate.Died<?> rejected(Tries.Generated g, String rejected, FollowUps<Tries.Generated> followUps) {
      Example e = g.example();
      tally.countRejected(rejected);
      if (tally.blaming()) {
        List<OpCalls.Call<FollowUps.Revert>> sent = followUps.blame(g);
        for (OpCalls.Call<FollowUps.Revert> call : sent != null ? sent
            : calls.probe(FollowUps.reverts(g), FollowUps.Revert::example, device)) {
          if (call.fate() instanceof Fate.Died<?> d) {
            return d;
          }
          if (call.fate() instanceof Fate.Answered && call.rejected() == null) {
            tally.blame(call.input().argument());
          }
        }
      }
      for (RejectionCheck r : List.copyOf(rejecters)) {
        Fate<Answers.Checked> sent = followUps.verdict(g, r.id());
        Fate<Answers.Checked> fate = sent != null ? sent : calls.onRejected(r, e, device, rejected);
        if (fate instanceof Fate.Died<?> d) {
          return d;
        }
        if (fate instanceof Fate.Answered<Answers.Checked> a && tally.countRejection(r.id(), a.answer().verdict())) {
          report(r, g, x -> calls.judgeRejection(r, x, device), a.answer().verdict());
          rejecters.remove(r);
        }
      }
      return null;
    }

    /** A try the kernel accepted: each open check's verdict on it; then the death after them, if any. */
    private Fate.Died<?> accepted(Tries.Generated g, OpCalls.Trial<Tries.Generated> tried) {
      tally.countAccepted();
      ground.accepted(g, tried.kernel());
      for (OpCalls.Asked asked : tried.checks()) {
        if (!(asked.fate() instanceof Fate.Answered<Answers.Checked> a)) {
          return tried.died().orElse(null);
        }
        Check c = asked.check();
        if (!open.contains(c)) {
          continue; // failed on an earlier try of this batch
        }
        if (tally.count(c.id(), a.answer().verdict())) {
          report(c, g, x -> calls.judge(c, x, device), a.answer().verdict());
          open.remove(c);
        }
      }
      return null;
    }

    /** Probes of the domain the kernel rejected, shown to the rejection checks (their verdicts in one exchange). */
    private void judgeProbes(List<DomainProbing.RejectedProbe> probes) {
      try (FollowUps<DomainProbing.RejectedProbe> followUps = FollowUps.ofProbes(session, calls, probes, rejecters,
          device)) {
        probes.forEach(p -> judgeProbe(p, followUps));
      }
    }

    /** A probe of the domain the kernel rejected, shown to the rejection checks. */
    private void judgeProbe(DomainProbing.RejectedProbe rejected, FollowUps<DomainProbing.RejectedProbe> followUps) {
      Example probe = rejected.probe();
      for (RejectionCheck r : List.copyOf(rejecters)) {
        if (session.stopped().isPresent()) {
          return;
        }
        Fate<Answers.Checked> sent = followUps.verdict(rejected, r.id());
        Fate<Answers.Checked> fate = sent != null ? sent : calls.onRejected(r, probe, device, rejected.why());
        if (fate instanceof Fate.Died<?> d) {
          deaths.died(d, null, probe, List.of(), "a probe of the op's domain: " + rejected.what(), 0);
        } else if (fate instanceof Fate.Answered<Answers.Checked> a && tally.countRejection(r.id(), a.answer().verdict())) {
          Verdict v = a.answer().verdict();
          String text = calls.describe(probe, device);
          List<Fact> context = FailureShrinker.shown(plan.seed(), probe.ref() + " with " + rejected.what() + "  " + text,
              "the example itself with one change (a probe of the op's domain)");
          runs.get(r).report("probe of " + probe.ref(), v.shownWith(context), ledger.micros(r.id()),
              session.repro(op.name(), r.id(), device, probe, text, false));
          rejecters.remove(r);
        }
      }
    }

    /** Shrinks the finding {@code original} of check {@code c} on try {@code g} and reports it. */
    private void report(Check c, Tries.Generated g, Function<Example, Fate<Answers.Checked>> judge, Verdict original) {
      Example first = g.example();
      FailureShrinker.Shrunk shrunk;
      String firstText;
      List<Fact> context;
      try (TimeLedger.Shrink shrink = ledger.shrinking(c.id())) {
        shrunk = shrinker.finding(g.gen(), first, g.sequence(), judge, original, crashClasses::skipsShrinkCandidate);
        firstText = calls.describe(first, device);
        context = FailureShrinker.shown(plan.seed(), first.ref() + " (" + g.label() + ")  " + firstText,
            calls.describe(shrunk.minimal(), device) + "  " + Shrinker.Result.shrunkIn(shrunk.steps()));
      }
      runs.get(c).report("generated from " + first.ref(), shrunk.verdict().shownWith(context), ledger.micros(c.id()),
          session.shrunkTo(session.repro(op.name(), c.id(), device, first, firstText, false), shrunk.minimal()),
          new ExampleRef(first.ref(), true, t, plan.seed(), firstText));
    }

    /** A result for each check still open after the tries, and the judges' of what generation saw. */
    private void finish(List<String> domain) {
      // generation stopped before the last try: the op used up its deaths, or the tries found no new ground
      Cut stopped = session.stopped().isPresent() && t < plan.tries() ? new Cut(t, deathPlaces.why(session.deaths()), true)
          : ground.cut();
      int examples = spec.examples().size();
      for (GeneratedRun run : runs.values()) {
        Check c = run.check();
        Cut own = deaths.of(c);
        Cut cut = own != null ? own : stopped;
        if (c instanceof GenerationCheck || !open.contains(c) && !rejecters.contains(c) && own == null) {
          continue; // judged below; or failed, and reported where it failed
        }
        // a check whose share of the tries was done before generation stopped lost none
        if (!(c instanceof RejectionCheck) && cut == stopped && tally.accepted() >= c.info().triesOf(plan.tries())) {
          cut = stopped != null && !stopped.lost() && ground.ranOn(c.id()) == t ? stopped : null;
        }
        int ran = c instanceof RejectionCheck || own != null ? t : ground.ranOn(c.id());
        Verdict v = c instanceof RejectionCheck ? tally.rejectionVerdict(c.id(), cut, own != null)
            : tally.valueVerdict(c.id(), cut, own != null);
        run.report(where, v, ledger.micros(c.id()), null, tally.summary(cut, examples, ran));
      }
      int tried = stopped != null ? t : plan.tries();
      GenerationStats stats = tally.stats(tried, domain).withLargestSizes(reach.text());
      for (GenerationCheck g : judges) {
        long t0 = System.nanoTime();
        Verdict v = tried == 0 ? Verdict.skipped(tally.before(stopped))
            : g.judge(new Subject(null, null, spec, device, null, plan.seed()), stats);
        if (stopped != null && v.outcome() != Outcome.SKIPPED) {
          v = v.shownWith(tally.withCut(stopped));
        }
        runs.get(g).report(where, v, ledger.micros(TimeLedger.PROBES) + (System.nanoTime() - t0) / 1_000, null,
            tally.summary(stopped, examples, tried));
      }
    }
  }
}
