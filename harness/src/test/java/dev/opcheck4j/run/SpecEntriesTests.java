package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One spec entry, one contract (issue 28 §3): a spec with two entries for value_ops::sine, which computes
 * cos(x). The first says sin(x) and must fail reference.values; the second says cos(x), with a skip and a
 * tolerance of its own, and must pass. When the worker looked entries up by op name, the second entry was
 * compared with the first's reference ("torch.sin(x)"), a false failure.
 */
class SpecEntriesTests {
  private static final Path SPEC = NativeOps.spec("values/one_op_two_entries.json");
  private static final String FIRST = "one_op_two_entries.json#ops[0]";
  private static final String SECOND = "one_op_two_entries.json#ops[1]";

  private static RunOutcome run(Path cache, Path reportDir) throws Exception {
    RunRequest.Builder request = RunRequest.builder().spec(SPEC).devices(List.of(Device.CPU)).seed(7L).tries(20)
        .jobs(1).reportDir(reportDir);
    if (cache != null) {
      request.cache(cache);
    }
    RunOutcome outcome = Launcher.execute(request.build(), RunListener.NONE);
    assertEquals(List.of(), outcome.inputErrors());
    return outcome;
  }

  /** The results of one entry: its examples' and the inputs generated from them. */
  private static Stream<CheckResult> of(List<CheckResult> results, String entry, String check) {
    return results.stream().filter(r -> r.check().equals(check)
        && (r.example().startsWith(entry + ".") || r.example().startsWith("generated from " + entry + ".")));
  }

  private static void eachEntryIsCheckedUnderItsOwnSettings(List<CheckResult> results) {
    List<CheckResult> second = of(results, SECOND, "reference.values").toList();
    assertFalse(second.isEmpty(), results.toString());
    second.forEach(r -> assertEquals(Outcome.PASSED, r.outcome(), r.toString()));
    List<CheckResult> first = of(results, FIRST, "reference.values").filter(r -> r.outcome() == Outcome.FAILED).toList();
    assertEquals(1, first.size(), results.toString());
    assertEquals("the values of the spec's reference: torch.sin(x)", first.get(0).fact("expected").orElseThrow());
    // the second entry's skip is its own: the first entry's determinism ran
    of(results, SECOND, "determinism").forEach(r -> assertTrue(r.outcome() == Outcome.SKIPPED
        && r.reason().contains("the second entry's own skip"), r.toString()));
    assertTrue(of(results, FIRST, "determinism").anyMatch(r -> r.outcome() == Outcome.PASSED), results.toString());
    // results without an example come once per entry: both entries' are in the report
    assertEquals(2, results.stream().filter(r -> r.check().equals("registration.exists")).count());
    assertEquals(2, results.stream().filter(r -> r.check().equals("generate.examples")).count());
  }

  @Test
  void eachOfTwoEntriesForOneOpIsCheckedUnderItsOwnReferenceSkipsAndTolerance(@TempDir Path tmp) throws Exception {
    eachEntryIsCheckedUnderItsOwnSettings(run(null, tmp.resolve("report")).report().results());
  }

  @Test
  void theCacheKeepsTheTwoEntriesResultsApart(@TempDir Path tmp) throws Exception {
    List<CheckResult> fresh = run(tmp.resolve("cache"), tmp.resolve("a")).report().results();
    eachEntryIsCheckedUnderItsOwnSettings(fresh);
    RunOutcome again = run(tmp.resolve("cache"), tmp.resolve("b"));
    // both entries replayed, each its own results (keyed by op name, the second replayed the first's)
    assertEquals(List.of("libvalue_ops.so", "value_ops::sine", "value_ops::sine"), again.report().run().cached());
    List<CheckResult> replayed = again.report().results();
    eachEntryIsCheckedUnderItsOwnSettings(replayed);
    assertEquals(fresh.stream().map(r -> r.op() + r.check() + r.device() + r.example() + r.outcome()).toList(),
        replayed.stream().map(r -> r.op() + r.check() + r.device() + r.example() + r.outcome()).toList());
  }
}
