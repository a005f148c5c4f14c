package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.testing.OneOpSessions;
import dev.opcheck4j.torch.Device;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The follow-ups of several rejected inputs in one exchange, without a worker: taken in the order one
 * input at a time asks for them, a death where that order reaches it returned, one where it does not
 * forgiven, and what came after a death asked again.
 */
class FollowUpsTests {
  private static final String CHECK = "fake.permissive";
  private static final Death CRASH = new Death(new Cause.Crash("SIGSEGV"), "killed by SIGSEGV",
      List.of(Fact.of("exit status", "139 (signal 11, SIGSEGV)")), Optional.of(CHECK));

  private final List<List<Protocol.Unit<?>>> sent = new ArrayList<>();

  private static Example example(long salt) {
    return new Example("t.json#ops[0].examples[0]", List.of(new SpecValue(2L, "t.json:1:1")), Map.of(), salt,
        "t.json:1:1");
  }

  /** A session whose one exchange answers its units in order up to {@code diesAt} (-1: none), which kills the worker. */
  private OpSession session(int diesAt) {
    Kernels kernels = new Kernels() {
      @Override
      public Exchange run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) {
        sent.add(units);
        Map<Long, Done> answers = new HashMap<>();
        for (int i = 0; i < units.size() && i != diesAt; i++) {
          answers.put((long) i, new Done(units.get(i) instanceof Protocol.Accepts ? new Answers.Accepted()
              : new Answers.Checked(Verdict.passed(Fact.of("input", i))), 5));
        }
        return new Exchange(0, answers, diesAt < 0 ? Optional.empty() : Optional.of(CRASH.in(diesAt)));
      }

      @Override
      public void close() {}
    };
    return OneOpSessions.of(kernels, example(0));
  }

  private static final FollowUps.Revert REVERT = new FollowUps.Revert("x", example(10));

  /** Input 0 with one revert, inputs 1 and 2 without: units 0 (revert), 1, 2, 3 (the check on each). */
  private static List<FollowUps.Input<String>> inputs() {
    return List.of(new FollowUps.Input<>("input 0", example(1), "sizes differ", List.of(REVERT), List.of(CHECK)),
        new FollowUps.Input<>("input 1", example(2), "sizes differ", List.of(), List.of(CHECK)),
        new FollowUps.Input<>("input 2", example(3), "sizes differ", List.of(), List.of(CHECK)));
  }

  private static Fate<Answers.Checked> passed(int input) {
    return new Fate.Answered<>(new Answers.Checked(Verdict.passed(Fact.of("input", input))), 5);
  }

  @Test
  void everyInputsBlameAndVerdictComeFromOneExchange() {
    OpSession s = session(-1);
    try (FollowUps<String> f = FollowUps.of(s, new OpCalls(s, "t::f", new TimeLedger()), inputs(), Device.CPU)) {
      assertEquals(1, sent.size());
      assertEquals(4, sent.get(0).size());
      assertEquals(List.of(new OpCalls.Call<>(REVERT, new Fate.Answered<>(new Answers.Accepted(), 5))),
          f.blame("input 0"));
      assertNull(f.blame("input 1"), "no revert of input 1 was sent: the caller asks (and gets none)");
      assertEquals(passed(3), f.verdict("input 2", CHECK));
      assertNull(f.verdict("input 2", "another.check"));
    }
    assertEquals(1, sent.size());
  }

  @Test
  void aDeathWhereOneInputAtATimeReachesItIsReturnedAndWhatCameAfterIsAskedAgain() {
    OpSession s = session(2);
    try (FollowUps<String> f = FollowUps.of(s, new OpCalls(s, "t::f", new TimeLedger()), inputs(), Device.CPU)) {
      assertEquals(passed(1), f.verdict("input 0", CHECK));
      Fate.Died<?> died = (Fate.Died<?>) f.verdict("input 1", CHECK);
      assertEquals(CRASH.in(2), died.death());
      assertEquals(CHECK, died.check());
      assertNull(f.verdict("input 2", CHECK), "never answered: asked again");
    }
    assertEquals(1, s.deaths(), "the death is the op's");
  }

  @Test
  void aDeathInAUnitOneInputAtATimeNeverRunsIsForgiven() {
    OpSession s = session(2);
    try (FollowUps<String> f = FollowUps.of(s, new OpCalls(s, "t::f", new TimeLedger()), inputs(), Device.CPU)) {
      assertEquals(1, s.deaths());
      f.verdict("input 0", CHECK); // then the check failed on input 0, so inputs 1 and 2 are never judged
    }
    assertEquals(0, s.deaths(), "input 1's check would not have run: its death is taken back");
  }
}
