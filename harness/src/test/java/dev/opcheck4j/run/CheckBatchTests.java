package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
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
        answers.put(ids++, new Done(new Protocol.Checked(v), 7));
      }
      return new Exchange(first, answers, Optional.empty());
    }

    @Override
    public void close() {}
  }

  /** What the batch told the runner, one line per call. */
  private static final class Recorded implements CheckBatch.Road {
    final List<String> calls = new ArrayList<>();
    final Map<String, Verdict> skipped = new HashMap<>();

    @Override
    public Verdict decide(CheckBatch.Step s) {
      return skipped.get(s.check().id());
    }

    @Override
    public void started(CheckBatch.Step s) {
      calls.add("started " + s.check().id());
    }

    @Override
    public void emit(CheckBatch.Step s, Verdict v, long micros) {
      calls.add(s.check().id() + " " + v.outcome().name().toLowerCase());
    }

    @Override
    public void died(CheckBatch.Step s, Death d, long micros) {
      calls.add(s.check().id() + " died");
    }

    @Override
    public void alone(CheckBatch.Step s) {
      calls.add(s.check().id() + " alone");
    }
  }

  private static Check check(String id) {
    return BuiltinChecks.byId(id).orElseThrow();
  }

  private static CheckBatch.Step step(String id) {
    return new CheckBatch.Step(check(id), Device.CPU, EXAMPLE, null);
  }

  @Test
  void checksThatRequireNoneOfTheRunShareOneExchangeAndLeaveInPlanOrder() {
    Scripted kernels = new Scripted(c -> Verdict.passed());
    Recorded road = new Recorded();
    road.skipped.put("schema.types", Verdict.skipped("spec says so"));
    CheckBatch batch = new CheckBatch(dev.opcheck4j.testing.OneOpSessions.of(kernels, EXAMPLE), "t::f", road);
    batch.add(step("determinism"));
    batch.add(step("schema.types"));
    batch.add(new CheckBatch.Step(check("fake.metadata"), Device.CPU, EXAMPLE, Verdict.skipped("invalid example")));
    batch.add(step("alias.outputs"));
    batch.flush();
    assertEquals(List.of(List.of("determinism", "alias.outputs")), kernels.exchanges);
    // started only for what ran a unit, each just before its result
    assertEquals(List.of("started determinism", "determinism passed", "schema.types skipped", "fake.metadata skipped",
        "started alias.outputs", "alias.outputs passed"), road.calls);
  }

  @Test
  void aCheckThatRequiresOneOfTheRunWaitsForItsResult() {
    Scripted kernels = new Scripted(c -> Verdict.passed());
    Recorded road = new Recorded();
    CheckBatch batch = new CheckBatch(dev.opcheck4j.testing.OneOpSessions.of(kernels, EXAMPLE), "t::f", road);
    batch.add(step("schema.types"));
    batch.add(step("kernel.error"));
    // requires kernel.error: decided only once it has its result
    batch.add(step("determinism"));
    batch.add(step("alias.outputs"));
    // requires kernel.error and determinism
    batch.add(step("noncontiguous"));
    batch.flush();
    assertEquals(List.of(List.of("schema.types", "kernel.error"), List.of("determinism", "alias.outputs"),
        List.of("noncontiguous")), kernels.exchanges);
  }

  @Test
  void afterADeathTheRestOfTheRunIsTakenOneAtATime() {
    Scripted kernels = new Scripted(c -> c.equals("alias.outputs") ? null : Verdict.passed());
    Recorded road = new Recorded();
    CheckBatch batch = new CheckBatch(dev.opcheck4j.testing.OneOpSessions.of(kernels, EXAMPLE), "t::f", road);
    batch.add(step("determinism"));
    batch.add(step("alias.outputs"));
    batch.add(step("mutation.unused"));
    batch.add(new CheckBatch.Step(check("alias.undeclared"), Device.CPU, EXAMPLE, Verdict.skipped("invalid example")));
    batch.flush();
    assertEquals(List.of(List.of("determinism", "alias.outputs", "mutation.unused")), kernels.exchanges);
    assertEquals(List.of("started determinism", "determinism passed", "started alias.outputs", "alias.outputs died",
        "mutation.unused alone", "alias.undeclared alone"), road.calls);
  }
}
