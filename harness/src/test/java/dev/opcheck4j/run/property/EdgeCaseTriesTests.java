package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.memory.MemoryBoundsCheck;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.testing.CorpusRun;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A budgeted check (a costly one's tenth of the tries, or a cap) also runs on every size edge case of every
 * example: three examples make nine edge cases (sizes 0, sizes 1, sizes untied each), more than
 * {@code memory.bounds}' 3 of 30 tries. memory_ops::half_shift_overread reads one element past the end of any
 * non-empty input; given only empty examples, its first overread is example 0's "sizes 1" edge case, try 3, the
 * fourth try: past the share, where only the edge-case rule has the guard pages look (torch_scatter::scatter_sum's
 * write past a small {@code out=} is the same case in the upstream corpus, try 8).
 */
class EdgeCaseTriesTests {
  private static final int TRIES = 30;

  @TempDir
  static Path dir;

  /** memory.bounds alone on {@code op}, whose three examples are empty tensors, at seed 7 and {@value #TRIES} tries. */
  private static RunOutcome run(String op) throws Exception {
    return run(op, "[0]", List.of(MemoryBoundsCheck.ID), false);
  }

  /** {@code checks} on {@code op}, whose three examples have sizes {@code sizes}, [2, sizes] and float64 ones. */
  private static RunOutcome run(String op, String sizes, List<String> checks, boolean allTries) throws Exception {
    Path spec = dir.resolve(op.replace("::", "_") + sizes.replaceAll("\\D", "") + ".json");
    Files.writeString(spec, """
        { "library": "%s",
          "ops": [ { "op": "%s", "examples": [
            {"args": [{"tensor": %s}]},
            {"args": [{"tensor": %s, "dtype": "float64"}]},
            {"args": [{"tensor": [2, %s]}]} ] } ] }
        """.formatted(NativeOps.lib("memory_ops").toAbsolutePath(), op, sizes, sizes, sizes.replaceAll("[\\[\\]]", "")));
    return Launcher.execute(RunRequest.builder().seed(7L).tries(TRIES).allTries(allTries).jobs(1).spec(spec)
        .checks(checks).devices(List.of(Device.CPU)).build(), RunListener.NONE);
  }

  /**
   * A fault in memory.bounds' guard pages is that check's finding, not a crash: three of them, one on each example,
   * do not use up the op's deaths (OpSession.MAX_DEATHS), and generation still gives determinism its tries.
   */
  @Test
  void guardPageFaultsDoNotStopGeneration() throws Exception {
    String op = "memory_ops::half_shift_overread";
    RunOutcome outcome = run(op, "[4]", List.of(MemoryBoundsCheck.ID, "determinism"), true);
    List<CheckResult> results = new CorpusRun(outcome.report()).of(op).toList();
    assertEquals(3, results.stream().filter(r -> r.check().equals(MemoryBoundsCheck.ID) && r.outcome() == Outcome.FAILED)
        .count(), results.toString());
    CheckResult determinism = results.stream().filter(r -> r.check().equals("determinism") && r.exampleInfo() != null
        && r.exampleInfo().generated()).findFirst().orElseThrow();
    assertEquals(Outcome.PASSED, determinism.outcome(), determinism.toString());
    assertTrue(determinism.fact(Fact.GENERATION_STOPPED).isEmpty(), determinism.toString());
    assertEquals("25", determinism.fact(Fact.INPUTS_CHECKED).orElseThrow(), "its cap of 30 tries: " + determinism);
  }

  private static int share() {
    return BuiltinChecks.byId(MemoryBoundsCheck.ID).orElseThrow().info().triesOf(TRIES);
  }

  @Test
  void aBudgetedCheckFindsAnOverreadOnAnEdgeCasePastItsShare() throws Exception {
    String op = "memory_ops::half_shift_overread";
    List<CheckResult> bounds = new CorpusRun(run(op).report()).of(op).filter(r -> r.check().equals(MemoryBoundsCheck.ID)).toList();
    List<CheckResult> failed = bounds.stream().filter(r -> r.outcome() == Outcome.FAILED).toList();
    assertEquals(1, failed.size(), bounds.toString());
    assertEquals(3, bounds.stream().filter(r -> r.outcome() == Outcome.PASSED).count(),
        "the empty examples themselves have no overread: " + bounds);
    CheckResult r = failed.get(0);
    String example = r.fact(Fact.EXAMPLE).orElseThrow();
    assertTrue(example.contains("(try 3 (edge case: sizes 1))"), example);
    assertTrue(3 >= share(), "try 3 is the fourth try: past the share of " + share());
    assertTrue(r.finding().toString().contains("argument 'x', past the end"), r.toString());
  }

  /** The good twin: memory.bounds ran on the nine edge cases, and its result and coverage say nine. */
  @Test
  void theTriesABudgetedCheckRanOnCountItsEdgeCases() throws Exception {
    String op = "memory_ops::half_shift";
    RunOutcome outcome = run(op);
    CheckResult generated = new CorpusRun(outcome.report()).of(op)
        .filter(r -> r.check().equals(MemoryBoundsCheck.ID) && r.exampleInfo() != null && r.exampleInfo().generated())
        .findFirst().orElseThrow();
    assertEquals(Outcome.PASSED, generated.outcome(), generated.toString());
    assertEquals(Integer.valueOf(9), generated.exampleInfo().tries(), generated.toString());
    assertEquals("9", generated.fact(Fact.INPUTS_CHECKED).orElseThrow(), generated.toString());
    assertTrue(generated.exampleInfo().stop().startsWith("its share of the tries (every size edge case"), generated.toString());
    Coverage.Entry memory = outcome.report().coverage().of(op).stream()
        .filter(e -> e.family().equals("memory") && "cpu".equals(e.device())).findFirst().orElseThrow();
    assertEquals(Integer.valueOf(9), memory.generated(), memory.toString());
  }
}
