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

  /** What the platform was told (or a mark of the test's own, with no node), in the order it was told. */
  record Told(String what, TestDescriptor node) {}

  final List<Told> told = new ArrayList<>();

  final EngineExecutionListener recorder = new EngineExecutionListener() {
    @Override
    public void executionStarted(TestDescriptor d) {
      told.add(new Told("started", d));
    }

    @Override
    public void executionFinished(TestDescriptor d, TestExecutionResult result) {
      told.add(new Told("finished", d));
    }

    @Override
    public void executionSkipped(TestDescriptor d, String reason) {
      told.add(new Told("skipped", d));
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

  /**
   * Times are the order of events here (the platform takes its own clock at each): the test marks when
   * the unit's work happens and when the results arrive, and asserts which event came before which.
   * Nothing may wait for the minute a result claims: the calls run with this thread's interrupt flag
   * set, so any sleep, wait or join among them would throw or consume it.
   */
  @Test
  void aTestRunsFromItsUnitStartToItsResultAndNothingSleeps() {
    RunDescriptor root = discover();
    ResultStream stream = new ResultStream(recorder, root, Rerun.MAVEN, System.out);
    EngineNode schema = find(root, "schema.types");
    EngineNode fake = find(root, "fake.metadata on cpu");
    EngineNode example = (EngineNode) fake.getChildren().iterator().next();

    stream.onUnitStarted(0, new RunListener.UnitEvent("my_ops::mul_add", "schema.types", CheckResult.NONE,
        CheckResult.NONE, Instant.now()));
    int work = mark("the unit's work");
    int results;
    boolean stillInterrupted;
    Thread.currentThread().interrupt();
    try {
      // a result claiming a minute: the engine used to hold the test open that long
      stream.onResult(0, new CheckResult("my_ops::mul_add", "schema.types", CheckResult.NONE, CheckResult.NONE,
          Outcome.PASSED, List.of(), 60_000_000));
      results = mark("the results");
      stream.onResult(0, new CheckResult("my_ops::mul_add", "fake.metadata", "cpu", example.example, Outcome.PASSED,
          List.of(), 60_000_000));
      stream.onSpecDone(0);
    } finally {
      stillInterrupted = Thread.interrupted();
    }
    assertTrue(stillInterrupted, "nothing waited (a sleep, wait or join would have thrown or cleared the interrupt)");

    assertTrue(at(schema, "started") < work && at(schema, "finished") > work && at(schema, "finished") < results,
        "from its unit's start to its result: " + told);
    assertTrue(at(example, "started") > results && at(example, "finished") == at(example, "started") + 1,
        "no unit event named it: it started at its result and finished at once: " + told);
    Map<TestDescriptor, Integer> startedAt = new HashMap<>();
    for (int i = 0; i < told.size(); i++) {
      Told t = told.get(i);
      switch (t.what()) {
        case "started" -> assertEquals(null, startedAt.put(t.node(), i), "started once: " + t.node().getDisplayName());
        case "finished" -> assertTrue(startedAt.containsKey(t.node()), "started before finished: " + t.node().getDisplayName());
        case "skipped" -> assertTrue(!startedAt.containsKey(t.node()), "a skipped test was never started: " + t.node().getDisplayName());
        default -> assertEquals(null, t.node(), "a mark of the test");
      }
    }
    assertEquals(startedAt.size(), told.stream().filter(t -> t.what().equals("finished")).count(), "every start finishes");
  }

  @Test
  void aTestWhoseUnitStartedButGaveNoResultIsAbortedNotSkipped() {
    RunDescriptor root = discover();
    ResultStream stream = new ResultStream(recorder, root, Rerun.MAVEN, System.out);
    EngineNode schema = find(root, "schema.types");
    stream.onUnitStarted(0, new RunListener.UnitEvent("my_ops::mul_add", "schema.types", CheckResult.NONE,
        CheckResult.NONE, Instant.now()));
    stream.onSpecDone(0);
    List<String> events = told.stream().filter(t -> t.node() == schema).map(Told::what).toList();
    assertEquals(List.of("started", "finished"), events);
  }

  /** Records a mark of the test's own among the events; returns its position. */
  private int mark(String what) {
    told.add(new Told(what, null));
    return told.size() - 1;
  }

  /** The position of the first {@code what} event of {@code d}. */
  private int at(TestDescriptor d, String what) {
    for (int i = 0; i < told.size(); i++) {
      if (told.get(i).node() == d && told.get(i).what().equals(what)) {
        return i;
      }
    }
    throw new AssertionError("never " + what + ": " + d.getDisplayName());
  }
}
