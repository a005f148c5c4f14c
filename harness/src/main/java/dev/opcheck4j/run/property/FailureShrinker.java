package dev.opcheck4j.run.property;

import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.Shrinker;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.Map;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Shrinks a generated input that gave a finding, or killed the worker, to a minimal one that still
 * does, keeping its cause: a shrink never turns one defect into another, and a candidate that kills
 * the worker reproduces only a crash or a timeout. Deaths while shrinking do not count towards the
 * op's ({@link OpSession#uncounted}): they re-find one already counted.
 */
final class FailureShrinker {
  static final int SHRINK_BUDGET = 300;
  /** Each death costs a new worker (seconds): shrinking a crash gets fewer steps. */
  static final int DEATH_SHRINK_BUDGET = 24;
  /** Candidates that kill the worker while another finding is shrunk: past these, the shrink ends where it is. */
  static final int SHRINK_DEATHS = 8;

  private final OpSession session;
  private final OpCalls calls;

  FailureShrinker(OpSession session, OpCalls calls) {
    this.session = session;
    this.calls = calls;
  }

  /**
   * A minimal input and what it gave.
   *
   * @param steps the shrink steps taken
   */
  record Shrunk(Example minimal, Verdict verdict, int steps) {}

  /**
   * The finding {@code original} of {@code first} (made from {@code sequence} by {@code gen}), shrunk:
   * a shrunk input counts only if {@code judge} gives a finding of the same cause on it ({@link
   * Verdict#sameFailure}). A candidate in a crash class learned on the op and device ({@code crashClass})
   * is not run: it would kill the worker, which never reproduces a finding that is not a death. When the
   * minimal input does not show it, {@code first} and {@code original}.
   */
  Shrunk finding(ExampleGenerator gen, Example first, List<Long> sequence,
      Function<Example, Fate<Answers.Checked>> judge, Verdict original, Predicate<Example> crashClass) {
    Shrinker.Result shrunk = uncounted(new Shrinker(keepsCause(gen, judge, original, crashClass), SHRINK_BUDGET),
        sequence);
    Example minimal = gen.generate(Choices.replay(shrunk.sequence()));
    // a minimal example that kills the worker, or that the check was not run on, does not show this finding
    return judge.apply(minimal) instanceof Fate.Answered<Answers.Checked> a && a.answer().verdict().sameFailure(original)
        ? new Shrunk(minimal, a.answer().verdict(), shrunk.steps()) : new Shrunk(first, original, shrunk.steps());
  }

  /**
   * The input {@code first} that killed the worker as {@code d} says, shrunk to a minimal one that kills
   * it the same way (a crash never shrinks into a timeout), with the check {@code during} (null: none)
   * after the kernel call; a null {@code gen} (a probe of the domain) is its own minimal input.
   */
  Shrunk death(Fate.Died<?> d, ExampleGenerator gen, Example first, List<Long> sequence, Device device, Check during) {
    if (gen == null) {
      return new Shrunk(first, null, 0);
    }
    List<Check> checks = during == null ? List.of() : List.of(during);
    // first crashed alone before it is shrunk (OpSession.alone). A candidate that crashes on a worker that ran
    // candidates before it is taken at its word while shrinking: the minimal input is then run alone on a fresh
    // worker, and only when it does not crash there is the shrink done again, each step confirmed alone. Each
    // death is a new worker: confirming every step alone cost one more death per step, and the minimal input
    // nearly always crashes alone (docs/performance.md, "Issue 55: what a crash costs")
    Set<Example> crashedAlone = new HashSet<>(Set.of(first));
    Shrinker.Result shrunk = uncounted(new Shrinker(dies(d, gen, first, device, checks, crashedAlone, false),
        DEATH_SHRINK_BUDGET), sequence);
    Example minimal = gen.generate(Choices.replay(shrunk.sequence()));
    if (!crashedAlone.contains(minimal)) {
      session.renew();
      Cause alone = session.uncounted(() -> calls.death(minimal, device, checks));
      if (alone == null || !alone.sameAs(d.death().cause())) {
        shrunk = uncounted(new Shrinker(dies(d, gen, first, device, checks, crashedAlone, true), DEATH_SHRINK_BUDGET),
            sequence);
        return new Shrunk(gen.generate(Choices.replay(shrunk.sequence())), null, shrunk.steps());
      }
    }
    return new Shrunk(minimal, null, shrunk.steps());
  }

  /**
   * Whether a candidate kills the worker as {@code d} did, with the check list {@code checks}; a candidate the
   * generator turns into an input already run (first among them) is known: the shrink's deletions and zeroings
   * of an already small input replay it often. What crashed on a worker that had run nothing before it is added to
   * {@code crashedAlone}; with {@code eachAlone}, a crash on a worker that had is run again on a fresh one and
   * counts only if it crashes there too.
   */
  private Predicate<Choices> dies(Fate.Died<?> d, ExampleGenerator gen, Example first, Device device, List<Check> checks,
      Set<Example> crashedAlone, boolean eachAlone) {
    Map<Example, Boolean> known = new HashMap<>(Map.of(first, true));
    session.renew();
    // a worker is fresh after a death
    boolean[] fresh = {true};
    return replay -> known.computeIfAbsent(gen.generate(replay), e -> {
      boolean wasFresh = fresh[0];
      Cause again = calls.death(e, device, checks);
      if (again != null && !wasFresh && eachAlone) {
        again = calls.death(e, device, checks);
        wasFresh = true;
      }
      fresh[0] = again != null;
      boolean same = again != null && again.sameAs(d.death().cause());
      if (same && wasFresh) {
        crashedAlone.add(e);
      }
      return same;
    });
  }

  private Shrinker.Result uncounted(Shrinker shrinker, List<Long> sequence) {
    return session.uncounted(() -> shrinker.shrink(sequence));
  }

  /**
   * Whether the input the choices describe gives a finding of the same outcome and cause as
   * {@code original}. A call that kills the worker reproduces only a finding whose cause is that
   * death (a crash, or a timeout): a value, metadata or contract finding is never "still failing" on
   * an input the kernel does not survive, or its minimal example would be the crash's.
   */
  static Predicate<Choices> keepsCause(ExampleGenerator gen, Function<Example, Fate<Answers.Checked>> judge,
      Verdict original) {
    return keepsCause(gen, judge, original, e -> false);
  }

  /**
   * {@link #keepsCause(ExampleGenerator, Function, Verdict)}, where an input of {@code crashClass} does not
   * keep a cause that is not a death, without a call: the class killed the worker on this op and device.
   * An input already judged is not judged again (the kernel is deterministic, as the shrinker assumes).
   */
  static Predicate<Choices> keepsCause(ExampleGenerator gen, Function<Example, Fate<Answers.Checked>> judge,
      Verdict original, Predicate<Example> crashClass) {
    int[] deathsLeft = {SHRINK_DEATHS};
    Cause cause = original.finding() == null ? null : original.finding().cause();
    boolean byDeath = cause instanceof Cause.Crash || cause instanceof Cause.Timeout;
    Map<Example, Boolean> known = new HashMap<>();
    return replay -> {
      Example e = gen.generate(replay);
      Boolean before = known.get(e);
      if (before != null) {
        return before;
      }
      if (!byDeath && crashClass.test(e)) {
        return false;
      }
      if (deathsLeft[0] <= 0) {
        return false; // each death costs a new worker: past the budget, the shrink ends where it is
      }
      Fate<Answers.Checked> j = judge.apply(e);
      boolean keeps;
      if (j instanceof Fate.Died<?> d) {
        deathsLeft[0]--;
        keeps = cause != null && d.death().cause().sameAs(cause);
      } else {
        // a check not run (the kernel rejected the input, or accepted it for a rejection check) passes
        keeps = j instanceof Fate.Answered<Answers.Checked> a && a.answer().verdict().sameFailure(original);
      }
      known.put(e, keeps);
      return keeps;
    };
  }

  /** How a finding on a generated input shows it: the input, the minimal one, the run's seed. */
  static List<Fact> shown(long seed, String example, String minimal) {
    return List.of(Fact.of(Fact.EXAMPLE, example), Fact.of(Fact.MINIMAL_EXAMPLE, minimal), Fact.of("seed", seed));
  }
}
