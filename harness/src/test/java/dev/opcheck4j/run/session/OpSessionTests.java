package dev.opcheck4j.run.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.link.Batch;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.Device;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The op session without a worker: each unit's fate looked up by its ticket, by unit id (whatever order
 * the answers come in), the death budget counted and paused in a scope, and a death turned into the supervisor's result.
 */
class OpSessionTests {
  private static final Death CRASH = new Death(new Cause.Crash("SIGSEGV"), "killed by SIGSEGV",
      List.of(Fact.of("exit status", "139 (signal 11, SIGSEGV)")), Optional.of("fake.metadata"));

  /** Kernels whose exchanges are made by {@code answer}, given the first id and the units; the opens they were sent. */
  private static final class Scripted implements Kernels {
    final Function<List<Protocol.Unit<?>>, Exchange> answer;
    final List<List<Protocol.OpenOp>> opens = new ArrayList<>();
    /** The units of each exchange, and how many times a fresh worker was asked for before it. */
    final List<List<Protocol.Unit<?>>> sent = new ArrayList<>();
    final List<Integer> renewedBefore = new ArrayList<>();
    int renewed;

    Scripted(Function<List<Protocol.Unit<?>>, Exchange> answer) {
      this.answer = answer;
    }

    @Override
    public Exchange run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) {
      this.opens.add(opens);
      sent.add(units);
      renewedBefore.add(renewed);
      return answer.apply(units);
    }

    @Override
    public void renew() {
      renewed++;
    }

    @Override
    public void close() {}
  }

  private static Example example(long salt) {
    return new Example("t.json#ops[0].examples[0]", List.of(new SpecValue(2L, "t.json:1:1")), Map.of(), salt,
        "t.json:1:1");
  }

  private static OpSession session(Kernels kernels) {
    return dev.opcheck4j.testing.OneOpSessions.of(kernels, example(0));
  }

  private static Kernels.Done done(Answers.Answer a) {
    return new Kernels.Done(a, 5);
  }

  /** A guarded batch of three inputs, each its kernel call guarding the checks b and c: the tickets, in order. */
  private static List<Batch.Ticket<?>> tryOn(OpSession s, Batch batch) {
    List<Batch.Ticket<?>> tickets = new ArrayList<>();
    for (Example e : List.of(example(1), example(2), example(3))) {
      tickets.add(s.accepts(batch, "t::f", Device.CPU, e));
      for (String check : List.of("b", "c")) {
        tickets.add(s.evaluate(batch, "t::f", new OpSession.Asked(check, Device.CPU, e)));
      }
    }
    return tickets;
  }

  @Test
  void eachUnitsFateIsLookedUpByItsIdNotByTheOrderOfTheAnswers() {
    // ids from 100: input 0 = 100 (kernel), 101, 102 (checks); input 1 = 103 (rejected: 104, 105 skipped);
    // input 2 = 106, 107, 108. The map holds them in no particular order.
    Map<Long, Kernels.Done> answers = new HashMap<>();
    answers.put(108L, done(new Answers.Checked(Verdict.errored("c of 2"))));
    answers.put(103L, done(new Answers.Rejected("x must be float32")));
    answers.put(101L, done(new Answers.Checked(Verdict.passed())));
    answers.put(106L, done(new Answers.Accepted()));
    answers.put(100L, done(new Answers.Accepted()));
    answers.put(107L, done(new Answers.Checked(Verdict.skipped("b of 2"))));
    answers.put(102L, done(new Answers.Checked(Verdict.errored("c of 0"))));
    Scripted kernels = new Scripted(units -> {
      assertEquals(9, units.size());
      return new Kernels.Exchange(100, answers, Optional.empty());
    });
    OpSession s = session(kernels);
    Batch batch = Batch.guarded();
    List<Batch.Ticket<?>> tickets = tryOn(s, batch);
    Kernels.Exchange x = s.run(batch);
    List<Fate<?>> fates = tickets.stream().<Fate<?>>map(x::fate).toList();
    assertEquals(new Fate.Answered<>(new Answers.Checked(Verdict.errored("c of 0")), 5), fates.get(2));
    assertEquals(new Fate.Answered<>(new Answers.Rejected("x must be float32"), 5), fates.get(3));
    assertEquals(List.of(new Fate.NotRun<>(), new Fate.NotRun<>()), fates.subList(4, 6),
        "a rejected input's checks were skipped by its guard");
    assertEquals(new Fate.Answered<>(new Answers.Checked(Verdict.errored("c of 2")), 5), fates.get(8));
    assertEquals(1, kernels.opens.get(0).size(), "the op's entry goes with each exchange; a worker takes it once");
    assertEquals("t::f", kernels.opens.get(0).get(0).entry().op());
  }

  @Test
  void theUnitInFlightDiedWithItsUnitAndTheUnitsAfterItDidNotRun() {
    // input 0 answered whole, input 1's kernel accepted and its first check killed the worker (unit 4)
    Map<Long, Kernels.Done> answers = Map.of(0L, done(new Answers.Accepted()), 1L,
        done(new Answers.Checked(Verdict.passed())), 2L, done(new Answers.Checked(Verdict.passed())),
        3L, done(new Answers.Accepted()));
    OpSession s = session(new Scripted(units -> new Kernels.Exchange(0, answers, Optional.of(CRASH.in(4)))));
    Batch batch = Batch.guarded();
    List<Batch.Ticket<?>> tickets = tryOn(s, batch);
    Kernels.Exchange x = s.run(batch);
    List<Fate<?>> fates = tickets.stream().<Fate<?>>map(x::fate).toList();
    assertTrue(fates.subList(0, 4).stream().allMatch(f -> f instanceof Fate.Answered), fates.toString());
    Fate.Died<?> died = (Fate.Died<?>) fates.get(4);
    assertEquals(CRASH.in(4), died.death());
    assertEquals("b", died.check(), "the check whose unit was in flight, named by its unit");
    assertTrue(fates.subList(5, 9).stream().allMatch(f -> f instanceof Fate.NotRun), fates.toString());
    assertEquals(1, s.deaths());
  }

  @Test
  void theDeathBudgetIsPausedOnlyInsideItsScopeEvenWhenTheScopeThrows() {
    OpSession s = session(new Scripted(units -> new Kernels.Exchange(0, Map.of(), Optional.of(CRASH.in(0)))));
    s.evaluate("b", "t::f", Device.CPU, example(0));
    assertEquals(1, s.deaths());
    int inside = s.uncounted(() -> {
      s.evaluate("b", "t::f", Device.CPU, example(0));
      s.evaluate("b", "t::f", Device.CPU, example(0));
      return s.deaths();
    });
    assertEquals(1, inside, "deaths while shrinking re-find one already counted");
    assertThrows(IllegalStateException.class, () -> s.uncounted(() -> {
      throw new IllegalStateException("a harness bug inside the scope");
    }));
    s.evaluate("b", "t::f", Device.CPU, example(0));
    assertEquals(2, s.deaths(), "counting again after a scope that threw");
    assertEquals(Optional.empty(), s.stopped());
    Death third = s.evaluate("b", "t::f", Device.CPU, example(0)).death().orElseThrow();
    assertTrue(s.stopped().orElseThrow().toString().contains("killed the worker 3 times"), s.stopped().toString());
    s.forgive(third);
    assertEquals(2, s.deaths(), "a death taken back by name");
    assertEquals(2, s.withSpec(OpSpec.bare("t::f")).deaths(), "a changed entry keeps the op's budget");
  }

  @Test
  void aDeathBecomesTheSupervisorsResultThroughTheVerdictRoad() {
    OpSession s = session(new Scripted(units -> Kernels.Exchange.none()));
    CheckResult r = s.result(CRASH, "t::f", BuiltinChecks.byId("fake.metadata").orElseThrow(), "fake.metadata",
        Device.CPU, example(0), List.of(), 12);
    assertEquals("kernel.crash", r.check());
    assertEquals(Outcome.FAILED, r.outcome());
    assertEquals("fake.metadata", r.fact("check").orElseThrow(), "the step the worker told last");
    assertEquals("139 (signal 11, SIGSEGV)", r.fact("exit status").orElseThrow());
    assertTrue(r.repro().oneWorker(), "the rerun of a crash runs with one worker");
    Death hang = new Death(new Cause.Timeout(5), "no answer after 5 s", List.of(), Optional.empty(), 3);
    CheckResult timeout = s.result(hang, "t::f", null, "synthesizing", Device.CPU, null, List.of(), 0);
    assertEquals("kernel.timeout", timeout.check());
    assertEquals("synthesizing", timeout.fact("check").orElseThrow(), "no step told: what the harness was doing");
    assertEquals(CheckResult.NONE, timeout.example());
  }

  /** The example the units of an exchange run on (each unit's {@code On}), in order, once each. */
  private static List<Example> inputsOf(List<Protocol.Unit<?>> units) {
    return units.stream().map(u -> ((Protocol.OpUnit<?>) u).on().example()).distinct().toList();
  }

  /**
   * A batch of three inputs (each its kernel call and checks b and c) whose worker crashed in input 2's kernel
   * call: the first exchange. Run alone, an exchange dies in its first unit when its input is one of {@code
   * crashing}, else every unit answers.
   */
  private static Scripted crashedInInputTwo(List<Example> crashing) {
    Map<Long, Kernels.Done> firstSix = new HashMap<>();
    for (long id = 0; id < 6; id++) {
      firstSix.put(id, done(id % 3 == 0 ? new Answers.Accepted() : new Answers.Checked(Verdict.passed())));
    }
    List<Integer> calls = new ArrayList<>();
    return new Scripted(units -> {
      calls.add(1);
      if (calls.size() == 1) {
        return new Kernels.Exchange(0, firstSix, Optional.of(CRASH.in(6)));
      }
      long first = 100L * calls.size();
      if (crashing.contains(inputsOf(units).get(0))) {
        return new Kernels.Exchange(first, Map.of(), Optional.of(CRASH.in(first)));
      }
      Map<Long, Kernels.Done> all = new HashMap<>();
      for (int i = 0; i < units.size(); i++) {
        all.put(first + i, done(units.get(i) instanceof Protocol.Accepts ? new Answers.Accepted()
            : new Answers.Checked(Verdict.passed())));
      }
      return new Kernels.Exchange(first, all, Optional.empty());
    });
  }

  /** The crash of {@link #crashedInInputTwo}'s first exchange, as its session saw it. */
  private static Death firstCrash(OpSession s) {
    Batch batch = Batch.guarded();
    tryOn(s, batch);
    return s.run(batch).death().orElseThrow();
  }

  @Test
  void aCrashThatReproducesAloneIsTheInputInFlightsAndOnlyItsUnitsAreSentAgainOnAFreshWorker() {
    Scripted kernels = crashedInInputTwo(List.of(example(3)));
    OpSession s = session(kernels);
    Death d = firstCrash(s);
    CrashWitness.Alone alone = s.alone(d);
    CrashWitness.Alone.Crashed c = (CrashWitness.Alone.Crashed) alone;
    assertTrue(c.inFlight());
    assertEquals(example(3), c.on().example());
    assertEquals(1, kernels.sent.get(1).size(), "input 2's kernel call, the unit that died, and nothing before it");
    assertEquals(1, kernels.renewedBefore.get(1), "on a fresh worker");
    assertEquals(alone, s.alone(d), "asked once per death");
    assertEquals(2, kernels.sent.size());
    CheckResult r = s.result(d, "t::f", null, "the real kernel", Device.CPU, example(3), List.of(), 0);
    assertEquals("crashed again when its input ran alone, on a fresh worker", r.fact(CrashWitness.ALONE).orElseThrow());
    assertEquals(1, s.deaths(), "running alone counts no death");
  }

  /**
   * Input 2 does not crash alone, input 1 (which ran before it in the same exchange) does: the crash is input
   * 1's, and the result names it, with its check, and the script rebuilds it.
   */
  @Test
  void aCrashIsBlamedOnTheInputOfItsExchangeThatCrashesAloneNotOnTheInputInFlight() {
    Scripted kernels = crashedInInputTwo(List.of(example(2)));
    OpSession s = session(kernels);
    Death d = firstCrash(s);
    CrashWitness.Alone.Crashed c = (CrashWitness.Alone.Crashed) s.alone(d);
    assertEquals(false, c.inFlight());
    assertEquals(example(2), c.on().example());
    assertEquals(List.of(List.of(example(3)), List.of(example(2))), kernels.sent.subList(1, 3).stream()
        .map(OpSessionTests::inputsOf).toList(), "the input in flight first, then the latest before it");
    assertEquals(3, kernels.sent.get(2).size(), "input 1's kernel call and the checks it guarded");
    assertEquals(List.of(1, 2), kernels.renewedBefore.subList(1, 3), "each on a fresh worker");
    CheckResult r = s.result(d, "t::f", null, "the real kernel", Device.CPU, example(3), List.of(), 0);
    assertTrue(r.fact(CrashWitness.ALONE).orElseThrow().startsWith("the input in flight did not crash"), r.toString());
    assertEquals("the real kernel on the input (before any check)", r.fact("check").orElseThrow(),
        "input 1 died in its kernel call; the step the worker told was input 2's");
  }

  @Test
  void aCrashNoInputReproducesAloneSaysSo() {
    Scripted kernels = crashedInInputTwo(List.of());
    OpSession s = session(kernels);
    Death d = firstCrash(s);
    CrashWitness.Alone alone = s.alone(d);
    assertTrue(alone instanceof CrashWitness.Alone.Nowhere, alone.toString());
    assertTrue(alone.shown().orElseThrow().startsWith("did not reproduce alone: neither the input in flight nor the 2"
        + " other inputs of its exchange crashed"), alone.toString());
    assertEquals(4, kernels.sent.size());
  }

  @Test
  void aHangOrAFaultInAGuardPageIsNotRunAgain() {
    Death hang = new Death(new Cause.Timeout(5), "no answer after 5 s", List.of(), Optional.empty(), 0);
    Scripted kernels = new Scripted(units -> new Kernels.Exchange(0, Map.of(), Optional.of(hang)));
    OpSession s = session(kernels);
    Death d = s.evaluate("b", "t::f", Device.CPU, example(0)).death().orElseThrow();
    assertEquals(new CrashWitness.Alone.Unasked(), s.alone(d));
    assertEquals(1, kernels.sent.size());
    assertEquals(Optional.empty(), s.result(d, "t::f", null, "b", Device.CPU, example(0), List.of(), 0)
        .fact(CrashWitness.ALONE));
  }
}
