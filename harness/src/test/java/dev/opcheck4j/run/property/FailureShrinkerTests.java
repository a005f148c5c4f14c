package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.testing.OneOpSessions;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Shrinking an input that killed the worker, on workers modelled in Java: each death is a new worker, and the
 * minimal input must crash alone, on a worker that ran nothing before it.
 */
class FailureShrinkerTests {
  private static final Death CRASH = new Death(new Cause.Crash("SIGSEGV"), "killed by SIGSEGV",
      List.of(Fact.of("exit status", "139 (signal 11, SIGSEGV)")), Optional.empty());

  /**
   * Workers whose kernel kills the process on an input {@code crashesAlone} says, and, with {@code damagedByEmpty},
   * once an empty input has run on the same worker, on the next empty one: the first damaged the worker's memory, the next shows it (a
   * kernel that writes past an empty buffer, and trips over it on the next). A death or a renewal is a new worker.
   */
  private static final class Modelled implements Kernels {
    final Predicate<Example> crashesAlone;
    boolean damaged;
    int deaths;
    /** Inputs run on this worker since it started. */
    int ran;
    /** Crashes on a worker that had run other inputs before. */
    int afterOthers;
    /** The inputs that crashed only because of what ran before them on their worker. */
    final List<Example> crashedOfDamage = new ArrayList<>();

    final boolean damagedByEmpty;

    Modelled(Predicate<Example> crashesAlone, boolean damagedByEmpty) {
      this.crashesAlone = crashesAlone;
      this.damagedByEmpty = damagedByEmpty;
    }

    @Override
    public Exchange run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) {
      Example e = ((Protocol.OpUnit<?>) units.get(0)).on().example();
      boolean ofDamage = damaged && numel(e) == 0;
      if (crashesAlone.test(e) || ofDamage) {
        if (!crashesAlone.test(e)) {
          crashedOfDamage.add(e);
        }
        deaths++;
        afterOthers += ran > 0 ? 1 : 0;
        ran = 0;
        damaged = false;
        return new Exchange(0, Map.of(), Optional.of(CRASH.in(0)));
      }
      damaged |= damagedByEmpty && numel(e) == 0;
      ran++;
      return new Exchange(0, Map.of(0L, new Done(new Answers.Accepted(), 5)), Optional.empty());
    }

    @Override
    public void renew() {
      ran = 0;
      damaged = false;
    }

    @Override
    public void close() {}
  }

  private static long numel(Example e) {
    long n = 1;
    for (SpecValue size : e.args().get(0).object().get("tensor").list()) {
      n *= ((Number) size.value()).longValue();
    }
    return n;
  }

  /** A generator of my_ops::mul_add's inputs around a [3, 4] example, and a sequence whose 'a' has at least 6 elements. */
  private static ExampleGenerator generator() throws Exception {
    var schema = OpLibrary.load(NativeOps.lib("my_ops")).op("my_ops::mul_add").schema();
    SpecValue t = new SpecValue(Map.of("tensor", new SpecValue(List.of(new SpecValue(3L, "-"), new SpecValue(4L, "-")), "-")), "-");
    return new ExampleGenerator(schema, new Example("ex", List.of(t, t, new SpecValue(0.5, "-")), Map.of()), Vary.NONE);
  }

  private static Choices crashing(ExampleGenerator gen, long from) {
    for (long seed = from; ; seed++) {
      Choices c = Choices.random(seed);
      if (numel(gen.generate(c)) >= 12) {
        return c;
      }
    }
  }

  private static FailureShrinker.Shrunk shrink(Modelled kernels, ExampleGenerator gen, Choices first) {
    Example e = gen.generate(Choices.replay(first.sequence()));
    OpSession s = OneOpSessions.of(kernels, e);
    FailureShrinker shrinker = new FailureShrinker(s, new OpCalls(s, "t::f", new TimeLedger()));
    Fate.Died<Answers.Checked> died = new Fate.Died<>(CRASH.in(0), null);
    return shrinker.death(died, gen, e, first.sequence(), Device.CPU, null);
  }

  @Test
  void aCrashThatNeedsNothingBeforeItCostsOneDeathPerCrashingCandidateNotTwo() throws Exception {
    ExampleGenerator gen = generator();
    int most = 0;
    for (long from : new long[] {0, 100, 200, 300, 400, 500, 600}) {
      Choices first = crashing(gen, from);
      Set<Example> crashed = new HashSet<>();
      Modelled kernels = new Modelled(e -> {
        boolean crashes = numel(e) >= 1;
        if (crashes) {
          crashed.add(e);
        }
        return crashes;
      }, false);
      FailureShrinker.Shrunk shrunk = shrink(kernels, gen, first);
      assertTrue(shrunk.steps() > 0, "the input shrank");
      assertTrue(numel(shrunk.minimal()) >= 1, "the minimal input crashes: " + shrunk.minimal());
      // each crashing candidate is one death; only a minimal input first seen crashing after other candidates on
      // its worker costs one more, run alone on a fresh one (confirming every step alone cost a death per step)
      assertTrue(kernels.deaths <= crashed.size() + 1, kernels.deaths + " deaths for " + crashed.size()
          + " crashing candidates");
      most = Math.max(most, kernels.afterOthers);
    }
    assertTrue(most >= 2, "a shrink met two crashes on a worker that had run other candidates: confirming each alone"
        + " would have cost two more deaths, not one");
  }

  @Test
  void aMinimalInputThatCrashedOnlyAfterOthersOnItsWorkerIsShrunkAgainEachStepAlone() throws Exception {
    ExampleGenerator gen = generator();
    int ofDamage = 0;
    for (long from : new long[] {0, 100, 200, 300, 400}) {
      Choices first = crashing(gen, from);
      Modelled kernels = new Modelled(e -> numel(e) >= 6, true);
      FailureShrinker.Shrunk shrunk = shrink(kernels, gen, first);
      ofDamage += kernels.crashedOfDamage.size();
      assertTrue(numel(shrunk.minimal()) >= 6, "the minimal input crashes alone, on a fresh worker: "
          + shrunk.minimal() + " (crashed only after others: " + kernels.crashedOfDamage + ")");
    }
    assertTrue(ofDamage > 0, "the shrinks met inputs that crash only on a damaged worker");
  }
}
