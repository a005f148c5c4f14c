package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.testing.OneOpSessions;
import dev.opcheck4j.torch.Device;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The phase's calls without a worker: one trial per input, each unit's fate read by its ticket, up to
 * the input a death ended; the probe the worker died on is the one whose fate says so.
 */
class OpCallsTests {
  private static final Death CRASH = new Death(new Cause.Crash("SIGSEGV"), "killed by SIGSEGV",
      List.of(Fact.of("exit status", "139 (signal 11, SIGSEGV)")), Optional.empty());
  private static final List<Check> CHECKS = BuiltinChecks.all().subList(0, 2);

  private static Example example(long salt) {
    return new Example("t.json#ops[0].examples[0]", List.of(new SpecValue(2L, "t.json:1:1")), Map.of(), salt,
        "t.json:1:1");
  }

  /** Calls whose one exchange answers {@code answers} by id, and dies in unit {@code diesIn} (-1: none). */
  private static OpCalls calls(Map<Long, Kernels.Done> answers, long diesIn) {
    Kernels kernels = new Kernels() {
      @Override
      public Exchange run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) {
        return new Exchange(0, answers, diesIn < 0 ? Optional.empty() : Optional.of(CRASH.in(diesIn)));
      }

      @Override
      public void close() {}
    };
    OpSession s = OneOpSessions.of(kernels, example(0));
    return new OpCalls(s, "t::f", new TimeLedger());
  }

  private static Kernels.Done done(Answers.Answer a) {
    return new Kernels.Done(a, 5);
  }

  @Test
  void aTrialEndsWhereTheDeathWasAndTheTrialsAfterItAreNotThere() {
    // input 0 answered whole, input 1's kernel accepted and its first check killed the worker (unit 4)
    Map<Long, Kernels.Done> answers = Map.of(0L, done(new Answers.Accepted()), 1L,
        done(new Answers.Checked(Verdict.passed())), 2L, done(new Answers.Checked(Verdict.passed())),
        3L, done(new Answers.Accepted()));
    List<OpCalls.Trial<String>> trials = calls(answers, 4).tryOn(List.of("a", "b", "c"), s -> example(s.charAt(0)),
        Device.CPU, CHECKS);
    assertEquals(List.of("a", "b"), trials.stream().map(OpCalls.Trial::input).toList(), "the third input was not reached");
    Fate.Died<?> died = trials.get(1).died().orElseThrow();
    assertEquals(CHECKS.get(0).id(), died.check(), "it died in the first check of the second input");
    assertEquals(new Fate.NotRun<>(), trials.get(1).checks().get(1).fate());
    assertEquals(Optional.empty(), trials.get(0).died());
    assertNull(trials.get(0).rejected());
  }

  @Test
  void anInputsKernelCallAndItsChecksShareOneOnSoItsExampleCrossesTheWireOnce() {
    List<List<Protocol.Unit<?>>> sent = new java.util.ArrayList<>();
    Kernels kernels = new Kernels() {
      @Override
      public Exchange run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) {
        sent.add(units);
        return new Exchange(0, Map.of(), Optional.empty());
      }

      @Override
      public void close() {}
    };
    new OpCalls(OneOpSessions.of(kernels, example(0)), "t::f", new TimeLedger())
        .tryOn(List.of("a", "b"), s -> example(s.charAt(0)), Device.CPU, CHECKS);
    List<Protocol.On> ons = sent.get(0).stream().map(u -> ((Protocol.OpUnit<?>) u).on()).toList();
    assertEquals(6, ons.size(), "per input its kernel call and two checks");
    for (int input = 0; input < 2; input++) {
      for (int unit = 1; unit < 3; unit++) {
        assertSame(ons.get(input * 3), ons.get(input * 3 + unit), "the units of input " + input + " share its On");
      }
    }
    assertNotSame(ons.get(0), ons.get(3), "each input has its own");
  }

  @Test
  void theProbeTheWorkerDiedOnIsTheOneWhoseFateSaysSo() {
    Map<Long, Kernels.Done> answers = Map.of(0L, done(new Answers.Rejected("no")), 1L, done(new Answers.Accepted()));
    List<OpCalls.Call<String>> probed = calls(answers, 2).probe(List.of("a", "b", "c", "d"), s -> example(s.charAt(0)),
        Device.CPU);
    assertEquals("no", probed.get(0).rejected());
    assertNull(probed.get(1).rejected());
    assertEquals(CRASH.in(2), ((Fate.Died<?>) probed.get(2).fate()).death());
    assertNull(((Fate.Died<?>) probed.get(2).fate()).check(), "a kernel call is no check's");
    assertEquals(new Fate.NotRun<>(), probed.get(3).fate());
  }
}
