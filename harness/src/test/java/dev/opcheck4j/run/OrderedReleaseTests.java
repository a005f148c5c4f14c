package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The listener sees each job's events in plan order, whatever order the jobs run and finish in. */
class OrderedReleaseTests {

  /** Each event the listener got, as "started op", "result op", "unit op" or "finished op". */
  private static final class Seen implements RunListener {
    final List<String> events = new ArrayList<>();

    @Override public void opStarted(OpEvent op) { events.add("started " + op.op()); }
    @Override public void unitStarted(UnitEvent unit) { events.add("unit " + unit.op()); }
    @Override public void result(CheckResult result) { events.add("result " + result.op()); }
    @Override public void opFinished(OpEvent op) { events.add("finished " + op.op()); }
  }

  /** What the listener of the test's release got; JUnit makes one per test. */
  private final Seen seen = new Seen();

  private OrderedRelease ordered(Integer... positions) {
    return new OrderedRelease(List.of(positions), seen);
  }

  private static RunListener.OpEvent op(String name) {
    return new RunListener.OpEvent(name, "lib.so", null, Instant.EPOCH);
  }

  private static CheckResult result(String op) {
    return new CheckResult(op, "schema", "cpu", "e0", Outcome.PASSED, List.of(), 0);
  }

  /** The whole of one job: started, one unit, one result, finished. */
  private static void runJob(OrderedRelease ordered, int position, String name) {
    RunListener job = ordered.job(position);
    job.opStarted(op(name));
    job.unitStarted(new RunListener.UnitEvent(name, "schema", "cpu", "e0", Instant.EPOCH));
    job.result(result(name));
    job.opFinished(op(name));
  }

  /** The whole of one job, and its end. */
  private static void finishJob(OrderedRelease ordered, int position, String name) {
    runJob(ordered, position, name);
    ordered.finish(position);
  }

  private static List<String> whole(String name) {
    return List.of("started " + name, "unit " + name, "result " + name, "finished " + name);
  }

  private static List<String> concat(List<List<String>> parts) {
    return parts.stream().flatMap(List::stream).toList();
  }

  @Test
  void jobsFinishingInReverseOrderAreReleasedInPlanOrder() {
    OrderedRelease ordered = ordered(0, 1, 2);
    finishJob(ordered, 2, "c");
    finishJob(ordered, 1, "b");
    assertEquals(List.of(), seen.events, "nothing passes while the first job is unfinished");
    runJob(ordered, 0, "a");
    assertEquals(whole("a"), seen.events, "the first unfinished job's events pass at once");
    ordered.finish(0);
    assertEquals(concat(List.of(whole("a"), whole("b"), whole("c"))), seen.events);
    assertEquals(List.of("a", "b", "c"), ordered.results().stream().map(CheckResult::op).toList());
  }

  @Test
  void aLaterJobsEventsWaitOnlyForTheJobsBeforeIt() {
    OrderedRelease ordered = ordered(0, 1, 2);
    RunListener first = ordered.job(0);
    first.opStarted(op("a"));
    finishJob(ordered, 1, "b");
    RunListener third = ordered.job(2);
    third.opStarted(op("c"));
    assertEquals(List.of("started a"), seen.events);
    first.opFinished(op("a"));
    ordered.finish(0);
    assertEquals(List.of("started a", "finished a", "started b", "unit b", "result b", "finished b", "started c"),
        seen.events, "the third job is now the first unfinished one: its events so far pass");
    third.opFinished(op("c"));
    assertEquals("finished c", seen.events.get(seen.events.size() - 1), "and its later ones pass at once");
  }

  @Test
  void aShardsSparsePositionsAreReleasedInPlanOrder() {
    // shard 2 of 3 of a library with eight entries: the library-wide job (position 0) is shard 1's
    OrderedRelease ordered = ordered(2, 5, 8);
    finishJob(ordered, 8, "h");
    runJob(ordered, 2, "b");
    assertEquals(whole("b"), seen.events);
    ordered.finish(2);
    finishJob(ordered, 5, "e");
    assertEquals(concat(List.of(whole("b"), whole("e"), whole("h"))), seen.events);
  }

  @Test
  void aPositionThatIsNotAJobsIsRefused() {
    OrderedRelease ordered = new OrderedRelease(List.of(2, 5), RunListener.NONE);
    assertThrows(IllegalArgumentException.class, () -> ordered.job(3));
    assertThrows(IllegalArgumentException.class, () -> ordered.finish(0));
    assertThrows(IllegalArgumentException.class, () -> new OrderedRelease(List.of(5, 2), RunListener.NONE));
  }

  @Test
  void releaseAllOnAStopReleasesUnfinishedJobsInPlanOrder() {
    OrderedRelease ordered = ordered(0, 1, 2, 3);
    ordered.job(0).opStarted(op("a"));
    ordered.job(2).opStarted(op("c"));
    ordered.job(2).result(result("c"));
    ordered.job(1).opStarted(op("b"));
    ordered.releaseAll();
    assertEquals(List.of("started a", "started b", "started c", "result c"), seen.events,
        "the events gathered so far, job by job in plan order; the job that never started has none");
    assertEquals(List.of("c"), ordered.results().stream().map(CheckResult::op).toList());
  }

  @Test
  void nothingIsReleasedTwice() {
    OrderedRelease ordered = ordered(0, 1, 2);
    finishJob(ordered, 1, "b");
    finishJob(ordered, 0, "a");
    ordered.finish(0);
    ordered.finish(1);
    ordered.job(2).result(result("c"));
    ordered.releaseAll();
    ordered.releaseAll();
    ordered.finish(2);
    List<String> once = concat(List.of(whole("a"), whole("b"), List.of("result c")));
    assertEquals(once, seen.events);
    assertEquals(List.of("a", "b", "c"), ordered.results().stream().map(CheckResult::op).toList());
  }
}
