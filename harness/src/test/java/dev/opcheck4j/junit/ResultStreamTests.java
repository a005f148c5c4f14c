package dev.opcheck4j.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectFile;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.Rerun;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.testing.NativeOps;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.EngineExecutionListener;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;

/**
 * The engine's tests take their times from the run's events: a test starts when its unit starts and
 * finishes at its result, nothing sleeps, and the duration a result claims plays no part. The tree
 * is discovered from a spec (no libtorch); the events are the run's, told by hand.
 */
class ResultStreamTests {
  @TempDir Path dir;

  /** What the platform was told, with the time it was told. */
  record Told(String what, TestDescriptor node, long nanos) {}

  final List<Told> told = new ArrayList<>();

  final EngineExecutionListener recorder = new EngineExecutionListener() {
    @Override
    public void executionStarted(TestDescriptor d) {
      told.add(new Told("started", d, System.nanoTime()));
    }

    @Override
    public void executionFinished(TestDescriptor d, TestExecutionResult result) {
      told.add(new Told("finished", d, System.nanoTime()));
    }

    @Override
    public void executionSkipped(TestDescriptor d, String reason) {
      told.add(new Told("skipped", d, System.nanoTime()));
    }

    @Override
    public void dynamicTestRegistered(TestDescriptor d) {}
  };

  RunDescriptor discover() {
    return (RunDescriptor) new OpCheckEngine().discover(LauncherDiscoveryRequestBuilder.request()
        .selectors(selectFile(NativeOps.spec("my_ops.json").toFile()))
        .configurationParameter("opcheck4j.reportDir", dir.toString())
        .configurationParameter("opcheck4j.ops", "my_ops::mul_add")
        .configurationParameter("opcheck4j.checks", "schema.types,fake.metadata")
        .configurationParameter("opcheck4j.devices", "cpu").build(), UniqueId.forEngine(OpCheckEngine.ID));
  }

  static EngineNode find(TestDescriptor d, String displayName) {
    if (d.getDisplayName().equals(displayName) && d instanceof EngineNode n) {
      return n;
    }
    for (TestDescriptor c : d.getChildren()) {
      EngineNode found = find(c, displayName);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  @Test
  void aTestRunsFromItsUnitStartToItsResultAndNothingSleeps() throws InterruptedException {
    RunDescriptor root = discover();
    ResultStream stream = new ResultStream(recorder, root, root.expected, Rerun.MAVEN);
    EngineNode schema = find(root, "schema.types");
    EngineNode fake = find(root, "fake.metadata on cpu");
    EngineNode example = (EngineNode) fake.getChildren().iterator().next();

    stream.onUnitStarted(0, new RunListener.UnitEvent("my_ops::mul_add", "schema.types", CheckResult.NONE,
        CheckResult.NONE, Instant.now()));
    Thread.sleep(200); // the unit's work
    long before = System.nanoTime();
    // a result claiming a minute: the engine used to hold the test open that long
    stream.onResult(0, new CheckResult("my_ops::mul_add", "schema.types", CheckResult.NONE, CheckResult.NONE,
        Outcome.PASSED, List.of(), 60_000_000));
    stream.onResult(0, new CheckResult("my_ops::mul_add", "fake.metadata", "cpu", example.example, Outcome.PASSED,
        List.of(), 60_000_000));
    stream.onSpecDone(0);
    long elapsedMs = (System.nanoTime() - before) / 1_000_000;

    assertTrue(elapsedMs < 5_000, "nothing waits for the duration a result claims: " + elapsedMs + " ms");
    assertTrue(duration(schema) >= 200_000_000L, "from its unit's start to its result: " + duration(schema) / 1_000_000 + " ms");
    assertTrue(duration(example) < 5_000_000_000L, "no unit event named it: it started at its result");
    Map<TestDescriptor, Integer> startedAt = new HashMap<>();
    for (int i = 0; i < told.size(); i++) {
      Told t = told.get(i);
      switch (t.what()) {
        case "started" -> assertEquals(null, startedAt.put(t.node(), i), "started once: " + t.node().getDisplayName());
        case "finished" -> assertTrue(startedAt.containsKey(t.node()), "started before finished: " + t.node().getDisplayName());
        default -> assertTrue(!startedAt.containsKey(t.node()), "a skipped test was never started: " + t.node().getDisplayName());
      }
    }
    assertEquals(startedAt.size(), told.stream().filter(t -> t.what().equals("finished")).count(), "every start finishes");
  }

  @Test
  void aTestWhoseUnitStartedButGaveNoResultIsAbortedNotSkipped() {
    RunDescriptor root = discover();
    ResultStream stream = new ResultStream(recorder, root, root.expected, Rerun.MAVEN);
    EngineNode schema = find(root, "schema.types");
    stream.onUnitStarted(0, new RunListener.UnitEvent("my_ops::mul_add", "schema.types", CheckResult.NONE,
        CheckResult.NONE, Instant.now()));
    stream.onSpecDone(0);
    List<String> events = told.stream().filter(t -> t.node() == schema).map(Told::what).toList();
    assertEquals(List.of("started", "finished"), events);
  }

  private long duration(TestDescriptor d) {
    long start = told.stream().filter(t -> t.node() == d && t.what().equals("started")).findFirst().orElseThrow().nanos();
    long end = told.stream().filter(t -> t.node() == d && t.what().equals("finished")).findFirst().orElseThrow().nanos();
    return end - start;
  }
}
