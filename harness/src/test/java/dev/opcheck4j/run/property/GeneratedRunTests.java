package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ExampleRef;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.testing.OneOpSessions;
import dev.opcheck4j.torch.Device;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One check's run over generated inputs: its start, then exactly one result, shown on the example it names. */
class GeneratedRunTests {
  private final List<String> events = new ArrayList<>();
  private final List<CheckResult> results = new ArrayList<>();

  private GeneratedRun run() {
    Kernels none = new Kernels() {
      @Override
      public Exchange run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) {
        throw new AssertionError("a generated run's result sends no unit");
      }

      @Override
      public void close() {}
    };
    Example example = new Example("t.json#ops[0].examples[0]", List.of(new SpecValue(2L, "t.json:1:1")), Map.of(), 0,
        "t.json:1:1");
    RunListener sink = new RunListener() {
      @Override
      public void unitStarted(UnitEvent e) {
        events.add("started " + e.check() + " " + e.device() + " " + e.example());
      }

      @Override
      public void result(CheckResult r) {
        events.add("result " + r.check() + " " + r.outcome());
        results.add(r);
      }
    };
    return new GeneratedRun(OneOpSessions.of(none, example), "t::f", BuiltinChecks.byId("noncontiguous").orElseThrow(),
        Device.CPU, sink);
  }

  @Test
  void startsThenReportsOneResultOnTheExampleItNames() {
    GeneratedRun run = run();
    run.started("generated (10 tries)");
    run.report("generated (10 tries)", Verdict.passed(Fact.of("tries", 10)), 7, null,
        new ExampleRef("all", true, null, 3L, "10 generated inputs"));
    assertEquals(List.of("started noncontiguous cpu generated (10 tries)", "result noncontiguous PASSED"), events);
    assertEquals(Outcome.PASSED, results.get(0).outcome());
    assertEquals("10 generated inputs", results.get(0).exampleInfo().description());
  }

  @Test
  void aSecondResultIsAHarnessBug() {
    GeneratedRun run = run();
    run.started("generated (10 tries)");
    run.report("generated (10 tries)", Verdict.skipped("the op killed its worker 3 times"), 0, null);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> run.report("generated (10 tries)", Verdict.passed(), 0, null));
    assertTrue(e.getMessage().contains("noncontiguous on cpu of t::f has a result already"), e.getMessage());
    assertEquals(1, results.size(), "the second result reached no listener");
  }
}
