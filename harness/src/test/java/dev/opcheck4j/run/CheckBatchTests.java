package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.spec.Example;
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
 * An op's checks sent in as few exchanges as their prerequisites allow, without a worker: which units
 * share an exchange, the results in plan order, and a death that sends the checks after it one at a time.
 */
class CheckBatchTests {
  private static final Example EXAMPLE = new Example("t.json#ops[0].examples[0]",
      List.of(new SpecValue(2L, "t.json:1:1")), Map.of(), 0, "t.json:1:1");
  private static final Death CRASH = new Death(new Cause.Crash("SIGSEGV"), "killed by SIGSEGV", List.of(),
      Optional.empty());

  /** Kernels that answer each unit of an exchange with {@code answer} (null: the worker died there); the exchanges' check ids. */
  private static final class Scripted implements Kernels {
    final Function<String, Verdict> answer;
    final List<List<String>> exchanges = new ArrayList<>();
    long ids = 100;

    Scripted(Function<String, Verdict> answer) {
      this.answer = answer;
    }

    @Override
    public Exchange run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) {
      List<String> checks = units.stream().map(u -> ((Protocol.Evaluate) u).check()).toList();
      exchanges.add(checks);
      Map<Long, Done> answers = new HashMap<>();
      long first = ids;
      for (String c : checks) {
        Verdict v = answer.apply(c);
        if (v == null) {
          return new Exchange(first, answers, Optional.of(CRASH.in(ids)));
        }
        answers.put(ids++, new Done(new Answers.Checked(v), 7));
      }
      return new Exchange(first, answers, Optional.empty());
    }

    @Override
    public void close() {}
  }

  /** A check run that records what the batch told it, one line per call, in one list for the batch. */
  private record Recorded(Check check, Verdict skip, List<String> calls) implements CheckBatch.Task {
    @Override
    public dev.opcheck4j.run.session.OpSession.Asked asked() {
      return new dev.opcheck4j.run.session.OpSession.Asked(check.id(), Device.CPU, EXAMPLE);
    }

    @Override
    public void started() {
      calls.add("started " + check.id());
    }

    @Override
    public void finished(Verdict v, long micros) {
      calls.add(check.id() + " " + v.outcome().name().toLowerCase());
    }

    @Override
    public void died(Death d, long micros) {
      calls.add(check.id() + " died");
    }

    @Override
    public void alone() {
      calls.add(check.id() + " alone");
    }
  }

  private static Check check(String id) {
    return BuiltinChecks.byId(id).orElseThrow();
  }

  private static void add(CheckBatch batch, List<String> calls, String id, Verdict skip) {
    batch.add(() -> new Recorded(check(id), skip, calls), check(id));
  }

  @Test
  void checksThatRequireNoneOfTheRunShareOneExchangeAndLeaveInPlanOrder() {
    Scripted kernels = new Scripted(c -> Verdict.passed());
    List<String> calls = new ArrayList<>();
    CheckBatch batch = new CheckBatch(dev.opcheck4j.testing.OneOpSessions.of(kernels, EXAMPLE), "t::f");
    add(batch, calls, "determinism", null);
    add(batch, calls, "schema.types", Verdict.skipped("spec says so"));
    add(batch, calls, "fake.metadata", Verdict.skipped("invalid example"));
    add(batch, calls, "alias.outputs", null);
    batch.flush();
    assertEquals(List.of(List.of("determinism", "alias.outputs")), kernels.exchanges);
    // started only for what ran a unit, each just before its result
    assertEquals(List.of("started determinism", "determinism passed", "schema.types skipped", "fake.metadata skipped",
        "started alias.outputs", "alias.outputs passed"), calls);
  }

  @Test
  void aCheckThatRequiresOneOfTheRunWaitsForItsResult() {
    Scripted kernels = new Scripted(c -> Verdict.passed());
    List<String> calls = new ArrayList<>();
    CheckBatch batch = new CheckBatch(dev.opcheck4j.testing.OneOpSessions.of(kernels, EXAMPLE), "t::f");
    add(batch, calls, "schema.types", null);
    add(batch, calls, "kernel.error", null);
    // requires kernel.error: decided only once it has its result
    add(batch, calls, "determinism", null);
    add(batch, calls, "alias.outputs", null);
    // requires kernel.error and determinism
    add(batch, calls, "noncontiguous", null);
    batch.flush();
    assertEquals(List.of(List.of("schema.types", "kernel.error"), List.of("determinism", "alias.outputs"),
        List.of("noncontiguous")), kernels.exchanges);
  }

  @Test
  void afterADeathTheRestOfTheRunIsTakenOneAtATime() {
    Scripted kernels = new Scripted(c -> c.equals("alias.outputs") ? null : Verdict.passed());
    List<String> calls = new ArrayList<>();
    CheckBatch batch = new CheckBatch(dev.opcheck4j.testing.OneOpSessions.of(kernels, EXAMPLE), "t::f");
    add(batch, calls, "determinism", null);
    add(batch, calls, "alias.outputs", null);
    add(batch, calls, "mutation.unused", null);
    add(batch, calls, "alias.undeclared", Verdict.skipped("invalid example"));
    batch.flush();
    assertEquals(List.of(List.of("determinism", "alias.outputs", "mutation.unused")), kernels.exchanges);
    assertEquals(List.of("started determinism", "determinism passed", "started alias.outputs", "alias.outputs died",
        "mutation.unused alone", "alias.undeclared alone"), calls);
  }
}
