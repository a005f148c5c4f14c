package dev.opcheck4j.checks.aoti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.testing.NativeOps;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The package checks end to end, as a release gate runs them: the spec fixtures/specs/aoti/aoti_ops.json, whose
 * package was compiled with libaoti_v1.so, on each release of aoti_ops.cpp in a worker of its own (the releases
 * share a namespace). Each release marked in the source fails exactly the checks its marker names.
 */
class PackageChecksTests {
  static final Path SPEC = NativeOps.spec("aoti/aoti_ops.json");
  static final Path BASELINE = NativeOps.repoRoot().resolve("fixtures/baselines/aoti_v1.json");

  static List<CheckResult> gate(String library, Path baseline) throws Exception {
    RunRequest.Builder r = RunRequest.builder().spec(SPEC, NativeOps.lib(library)).checks(List.of("aoti")).tries(0)
        .jobs(1).seed(7L);
    if (baseline != null) {
      r.baseline(baseline);
    }
    RunOutcome outcome = Launcher.execute(r.build(), RunListener.NONE);
    assertEquals(List.of(), outcome.inputErrors());
    return outcome.report().results();
  }

  static Set<String> withFindings(List<CheckResult> results) {
    return results.stream().filter(r -> r.outcome() == Outcome.FAILED || r.outcome() == Outcome.WARNING)
        .map(r -> r.check() + " " + r.op()).collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void theReleaseThePackageWasCompiledWithPassesEveryCheckAndTheRunMatchesPythonsOutputs() throws Exception {
    List<CheckResult> results = gate("aoti_v1", null);
    assertEquals(Set.of(), withFindings(results));
    assertEquals(15, results.stream().filter(r -> r.check().equals(PackageCallsCheck.ID)).count());
    CheckResult run = results.stream().filter(r -> r.check().equals(PackageRunCheck.ID)).findFirst().orElseThrow();
    assertEquals(Outcome.PASSED, run.outcome(), run.toString());
    assertEquals("2", run.fact(PackageRunCheck.COMPARED).orElseThrow());
    assertEquals("aoti_ops.pt2", run.example());
  }

  /**
   * The {@code // OP: ns::op (libX.so)} / {@code // EXPECT: ids} markers of aoti_ops.cpp: each release fails the
   * checks named, about its op, and nothing else but the package's run where the marker names {@code aoti.run}.
   */
  @TestFactory
  Stream<DynamicTest> eachReleaseFailsExactlyTheChecksItsMarkerNames() throws Exception {
    Map<String, Set<String>> marked = NativeOps.expectations("aoti_ops.cpp");
    assertEquals(6, marked.size(), "one marker per row of the drift table: " + marked);
    return marked.entrySet().stream().map(e -> DynamicTest.dynamicTest(e.getKey(), () -> {
      String op = e.getKey().substring(0, e.getKey().indexOf(' '));
      String lib = e.getKey().substring(e.getKey().indexOf("(lib") + 4, e.getKey().indexOf(".so)"));
      Set<String> want = new TreeSet<>();
      for (String check : e.getValue()) {
        if (!check.isEmpty()) {
          want.add(check + " " + (check.equals(PackageRunCheck.ID) ? "aoti_ops::*" : op));
        }
      }
      List<CheckResult> results = gate(lib, null);
      assertEquals(want, withFindings(results), lib);
      for (CheckResult r : results) {
        if (r.outcome() == Outcome.FAILED && !r.check().equals(PackageRunCheck.ID)) {
          // a finding names the op, the argument and both sides, by the check's own keys
          assertTrue(r.fact(PackageCallsCheck.CALL).isPresent(), r.toString());
          assertTrue(op.equals("aoti_ops::gone") || r.fact(PackageCallsCheck.ARGUMENT).isPresent(), r.toString());
        }
      }
    }));
  }

  @Test
  void withTheBaselineOfTheReleaseItWasCompiledWithAnArgumentNowWrittenFailsTheGateBeforeTheRun() throws Exception {
    List<CheckResult> results = gate("aoti_v2_mutates", BASELINE);
    assertEquals(Set.of("aoti.calls aoti_ops::mutated"), withFindings(results));
    CheckResult f = results.stream().filter(r -> r.outcome() == Outcome.FAILED).findFirst().orElseThrow();
    assertEquals("y", f.fact(PackageCallsCheck.ARGUMENT).orElseThrow());
    assertEquals("Tensor(a!) y (libaoti_v2_mutates.so)", f.fact(PackageCallsCheck.LIBRARY_SIDE).orElseThrow());
    CheckResult run = results.stream().filter(r -> r.check().equals(PackageRunCheck.ID)).findFirst().orElseThrow();
    assertEquals(Outcome.SKIPPED, run.outcome());
    assertTrue(run.reason().startsWith("requires aoti.calls, which failed on aoti_ops.pt2"), run.reason());
  }

  /** The engine reads the option's row too ({@code opcheck4j.packages}): a package's calls are tests of the spec. */
  @Test
  void theEnginesPackagesAreCheckedAgainstTheSpecsLibrary(@org.junit.jupiter.api.io.TempDir Path dir) {
    Path models = NativeOps.repoRoot().resolve("fixtures/models/aoti");
    org.junit.platform.testkit.engine.EngineExecutionResults served = engine(dir.resolve("a"), models.resolve("my_ops.pt2"));
    List<String> passed = served.testEvents().succeeded().stream().map(e -> e.getTestDescriptor().getDisplayName())
        .filter(n -> n.contains("aoti.calls")).toList();
    assertEquals(2, passed.size(), "warp_perspective and mul_add: " + passed);
    assertEquals(0, served.testEvents().failed().count());
    // a package of another library's ops: each op it calls is registered by none of the spec's
    org.junit.platform.testkit.engine.EngineExecutionResults other = engine(dir.resolve("b"), models.resolve("aoti_ops.pt2"));
    assertEquals(15, other.testEvents().failed().stream().filter(e -> e.getTestDescriptor().getDisplayName()
        .contains("aoti.calls")).count());
  }

  private static org.junit.platform.testkit.engine.EngineExecutionResults engine(Path reports, Path pkg) {
    return org.junit.platform.testkit.engine.EngineTestKit.engine(dev.opcheck4j.junit.OpCheckEngine.ID)
        .selectors(org.junit.platform.engine.discovery.DiscoverySelectors.selectFile(NativeOps.spec("my_ops.json").toFile()))
        .configurationParameter("opcheck4j.reportDir", reports.toString())
        .configurationParameter("opcheck4j.checks", "aoti").configurationParameter("opcheck4j.tries", "0")
        .configurationParameter("opcheck4j.packages", pkg.toString()).execute();
  }

  /** The OpCheck builder takes packages as --package does. */
  @Test
  void theBuilderTakesPackages() throws Exception {
    var results = dev.opcheck4j.junit.OpCheck.library(NativeOps.lib("aoti_v2_retyped")).checks("aoti.calls").tries(0)
        .packages(NativeOps.repoRoot().resolve("fixtures/models/aoti/aoti_ops.pt2")).run();
    assertEquals(Set.of("aoti.calls aoti_ops::retyped"), withFindings(results.report().results()));
  }
}
