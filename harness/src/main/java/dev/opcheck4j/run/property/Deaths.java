package dev.opcheck4j.run.property;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.RejectionCheck;
import dev.opcheck4j.checks.SupervisorCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.Shrinker;
import dev.opcheck4j.run.session.CrashWitness;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The worker deaths of generation on one device. Each kind of death (what was running, and how it
 * died) is shrunk and reported once, by the supervisor check that covers it; a check whose own call
 * killed the worker stops there, the others go on.
 */
final class Deaths {
  private final Device device;
  private final List<Check> open;
  private final List<RejectionCheck> rejecters;
  private final OpSession session;
  private final String op;
  private final OpCalls calls;
  private final FailureShrinker shrinker;
  private final RunListener sink;
  /** Checks stopped by a death in their own call: when, and why. */
  private final Map<Check, Cut> cut = new LinkedHashMap<>();
  private final Set<String> reported = new HashSet<>();

  /**
   * @param open the value checks still running, which a death in its own call removes
   * @param rejecters the rejection checks still running, likewise
   */
  Deaths(Device device, List<Check> open, List<RejectionCheck> rejecters, OpSession session, String op, OpCalls calls,
      FailureShrinker shrinker, RunListener sink) {
    this.device = device;
    this.open = open;
    this.rejecters = rejecters;
    this.session = session;
    this.op = op;
    this.calls = calls;
    this.shrinker = shrinker;
    this.sink = sink;
  }

  /** Where generation stopped for {@code c} because its own call killed the worker, or null. */
  Cut of(Check c) {
    return cut.get(c);
  }

  /**
   * A call killed the worker on {@code first} (made from {@code sequence} by {@code gen}; null gen: a
   * probe of the domain, which is its own minimal example), after {@code tries} tries. Returns the input
   * that says most about what kills it: the minimal example when this death was shrunk, else {@code first};
   * null when the crash did not reproduce alone.
   */
  Example died(Fate.Died<?> d, ExampleGenerator gen, Example first, List<Long> sequence, String label, int tries) {
    // the input of the unit that died (a rejected try's follow-up runs the try with an argument put back)
    Example telling = d.unit() instanceof Protocol.OpUnit<?> u ? u.on().example() : first;
    if (reported.add(d.check() + " " + d.death().cause().kind())) {
      telling = report(d, gen, first, sequence, label);
    }
    if (d.check() == null) {
      return telling;
    }
    List<Check> running = new ArrayList<>(open);
    running.addAll(rejecters);
    for (Check c : running) {
      if (c.id().equals(d.check())) {
        open.remove(c);
        rejecters.remove(c);
        cut.put(c, new Cut(tries, "its own call killed the worker on " + label + " (see "
            + BuiltinChecks.supervising(d.death().cause()).id() + ")"));
      }
    }
    return telling;
  }

  /**
   * A generated input killed the worker: the input that crashes alone ({@link OpSession#alone}: the one in
   * flight, or another of its exchange), shrunk to a minimal one that still does when the generator drew
   * it, and reported. Returns the input that says most about what kills the worker, or null when the
   * crash did not reproduce alone (nothing to learn from).
   */
  private Example report(Fate.Died<?> d, ExampleGenerator gen, Example first, List<Long> sequence, String tryLabel) {
    long t = System.nanoTime();
    CrashWitness.Alone alone = session.alone(d.death());
    Example culprit = alone instanceof CrashWitness.Alone.Crashed c && c.on() != null ? c.on().example() : null;
    String check = culprit != null ? ((CrashWitness.Alone.Crashed) alone).check() : d.check();
    Check running = check == null ? null : BuiltinChecks.byId(check).orElse(null);
    Example minimal;
    Fact shown;
    Fact smallest;
    if (alone instanceof CrashWitness.Alone.Nowhere) {
      minimal = null;
      shown = Fact.of(Fact.EXAMPLE, first.ref() + " (" + tryLabel + ")  " + calls.describe(first, device));
      smallest = Fact.of(Fact.MINIMAL_EXAMPLE, "none: the crash did not reproduce alone");
    } else if (culprit == null || culprit.equals(first)) {
      Check during = open.stream().filter(c -> c.id().equals(check)).findFirst().orElse(null);
      FailureShrinker.Shrunk shrunk = shrinker.death(d, gen, first, sequence, device, during);
      minimal = shrunk.minimal();
      shown = Fact.of(Fact.EXAMPLE, first.ref() + " (" + tryLabel + ")  " + calls.describe(first, device));
      smallest = Fact.of(Fact.MINIMAL_EXAMPLE, calls.describe(minimal, device) + "  "
          + Shrinker.Result.shrunkIn(shrunk.steps()));
    } else {
      // an input the generator did not draw as it stands (a rejected try's argument put back), or another try
      // of the exchange: reported as it crashed, not shrunk
      minimal = culprit;
      shown = Fact.of(Fact.EXAMPLE, culprit.ref() + " (" + tryLabel + " was " + calls.describe(first, device)
          + "; this input of its exchange crashed alone)  " + calls.describe(culprit, device));
      smallest = Fact.of(Fact.MINIMAL_EXAMPLE, calls.describe(culprit, device) + "  (not shrunk: the generator did"
          + " not draw it as it stands)");
    }
    String doing = check == null ? "the real kernel on a generated input (before any check)" : check;
    Example example = culprit == null ? first : culprit;
    List<Fact> more = new ArrayList<>(List.of(shown, smallest));
    if (minimal != null && d.death().cause() instanceof Cause.Crash) {
      diagnosis(minimal).ifPresent(more::add);
    }
    sink.result(session.result(d.death(), op, running, doing, device, example, minimal == null ? example : minimal,
        more, (System.nanoTime() - t) / 1_000));
    return minimal;
  }

  /**
   * What the checks that diagnose crashes ({@link SupervisorCheck#diagnosesCrashes}) see on {@code e}, which
   * crashed, under their guards (their own call alone, not the plain call before it, which would crash again):
   * the first finding, as a fact; empty when none has one. Its deaths are not counted.
   */
  private Optional<Fact> diagnosis(Example e) {
    for (Check c : BuiltinChecks.all()) {
      if (c instanceof SupervisorCheck s && s.diagnosesCrashes() && c.appliesTo(device)) {
        Kernels.Exchange x = session.uncounted(() -> session.evaluate(c.id(), op, device, e));
        Cause died = x.death().map(Death::cause).orElse(null);
        Verdict v = died != null ? null : x.single(Answers.Checked.class).verdict();
        String found = died != null && s.covers(died) ? died instanceof Cause.Contract k ? k.subject() : died.kind()
            : v != null && v.outcome() == Outcome.FAILED ? v.finding().actual() : null;
        if (found != null) {
          return Optional.of(Fact.of(SupervisorCheck.DIAGNOSIS, c.id() + ": " + found));
        }
      }
    }
    return Optional.empty();
  }
}
