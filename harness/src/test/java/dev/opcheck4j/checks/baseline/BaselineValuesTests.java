package dev.opcheck4j.checks.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.cli.Main;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.SchemaBaseline;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * baseline.values: a baseline recorded with a spec from drift v1; the v2 whose scaled_sine drifts by
 * 1e-3 relative fails only baseline.values, on that op alone; a rebuild with identical values passes;
 * a run without a value baseline has no baseline.values result at all.
 */
class BaselineValuesTests {
  @TempDir
  static Path dir;
  private static Path baseline;

  private static int cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Main main = new Main(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(out, true, StandardCharsets.UTF_8),
        NativeOps.repoRoot());
    return main.run(args).code();
  }

  /** The drift spec with its library replaced by {@code build}, in a folder of its own (the same file name). */
  private static Path spec(String build) throws Exception {
    Path folder = Files.createDirectories(dir.resolve(build));
    String text = Files.readString(NativeOps.spec("values/drift.json"))
        .replace("\"../../../native-ops/target/lib/libdrift_v1.so\"", "\"" + NativeOps.lib(build) + "\"");
    return Files.writeString(folder.resolve("drift.json"), text);
  }

  @BeforeAll
  static void recordV1() throws Exception {
    baseline = dir.resolve("v1.json");
    assertEquals(0, cli("baseline", "--spec", NativeOps.spec("values/drift.json").toString(), "--seed", "3",
        "--out", baseline.toString()));
  }

  @Test
  void theBaselineNamesItsSideFileOfRecordedOutputs() throws Exception {
    SchemaBaseline b = SchemaBaseline.read(baseline);
    assertEquals("v1.values.json", b.values());
    String side = Files.readString(dir.resolve("v1.values.json"));
    assertTrue(side.startsWith("{\"format\":\"opcheck4j-values/1\",\"seed\":3,"), side);
    assertTrue(side.contains("\"example\":\"drift.json#ops[1].examples[0]\""), side);
    assertTrue(side.contains("\"values\":[],\"summary\""), "a 16x16 output is recorded by summary: " + side);
  }

  private static RunReport check(String build) throws Exception {
    RunRequest request = RunRequest.builder().seed(7L).tries(5).jobs(1).spec(spec(build)).baseline(baseline).build();
    return Launcher.execute(request, RunListener.NONE).report();
  }

  private static Set<String> findings(RunReport r, String op) {
    return r.results().stream()
        .filter(x -> x.op().equals(op) && (x.outcome() == Outcome.FAILED || x.outcome() == Outcome.ERRORED
            || x.outcome() == Outcome.WARNING || x.outcome() == Outcome.NOTE))
        .map(CheckResult::check).collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void theDriftingReleaseFailsOnlyBaselineValuesOnTheOpThatDrifts() throws Exception {
    RunReport r = check("drift_v2");
    var expected = NativeOps.expectations("drift_ops.cpp");
    assertEquals(Set.of("drift_ops::scaled_sine"), expected.keySet());
    assertEquals(expected.get("drift_ops::scaled_sine"), findings(r, "drift_ops::scaled_sine"));
    assertEquals(Set.of(), findings(r, "drift_ops::square"));
    CheckResult failed = r.results().stream()
        .filter(x -> x.check().equals(BaselineValuesCheck.ID) && x.outcome() == Outcome.FAILED).findFirst().orElseThrow();
    assertEquals(1e-3, Double.parseDouble(failed.fact("max rel error").orElseThrow()), 1e-6, failed.toString());
    assertEquals("12 of 12", failed.fact("differing").orElseThrow());
  }

  @Test
  void anIdenticalReleasePassesBothTheSmallAndTheSummarisedOutput() throws Exception {
    RunReport r = check("drift_v2_same");
    assertEquals(Set.of(), findings(r, "drift_ops::scaled_sine"));
    List<CheckResult> compared = r.results().stream()
        .filter(x -> x.check().equals(BaselineValuesCheck.ID) && x.device().equals("cpu")).toList();
    assertEquals(2, compared.size(), compared.toString());
    compared.forEach(x -> assertEquals(Outcome.PASSED, x.outcome(), x.toString()));
  }

  @Test
  void theCommandLineExitsOneOnTheDriftAndZeroOnTheRebuild() throws Exception {
    assertEquals(1, cli("check", "--spec", spec("drift_v2").toString(), "--baseline", baseline.toString(),
        "--check", BaselineValuesCheck.ID, "--tries", "0"));
    assertEquals(0, cli("check", "--spec", spec("drift_v2_same").toString(), "--baseline", baseline.toString(),
        "--check", BaselineValuesCheck.ID, "--tries", "0"));
  }

  @Test
  void withoutAValueBaselineTheCheckGivesNoResult() throws Exception {
    RunRequest request = RunRequest.builder().seed(7L).tries(0).jobs(1).spec(spec("drift_v2")).build();
    RunReport r = Launcher.execute(request, RunListener.NONE).report();
    assertTrue(r.results().stream().noneMatch(x -> x.check().equals(BaselineValuesCheck.ID)));
  }
}
