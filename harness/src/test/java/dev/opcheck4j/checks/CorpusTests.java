package dev.opcheck4j.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.run.RunPlan;
import dev.opcheck4j.run.Runner;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.TorchRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Tests the tester on the native-ops corpus: each known-bad op fails exactly the checks its
 * {@code // EXPECT:} marker lists (among the checks the harness has), and no good op fails anything.
 */
class CorpusTests {
  private static RunReport bad;
  private static RunReport good;

  @BeforeAll
  static void runCorpus() throws Exception {
    TorchRuntime rt = TorchRuntime.get();
    List<Device> devices = new ArrayList<>(rt.availableDevices());
    if (!devices.contains(Device.CUDA)) {
      devices.add(Device.CUDA);
    }
    bad = run(rt, devices, List.of(NativeOps.lib("bad_ops")));
    good = run(rt, devices, NativeOps.goodLibraries());
  }

  private static RunReport run(TorchRuntime rt, List<Device> devices, List<Path> libs) throws Exception {
    List<RunPlan.Target> targets = new ArrayList<>();
    for (Path lib : libs) {
      targets.add(RunPlan.Target.allOps(OpLibrary.load(lib)));
    }
    return new Runner(rt).run(new RunPlan(targets, devices, BuiltinChecks.all(), 7L), r -> {});
  }

  @TestFactory
  Stream<DynamicTest> eachBadOpFailsExactlyItsMarkedChecks() throws Exception {
    Set<String> implemented = BuiltinChecks.all().stream().map(Check::id).collect(Collectors.toSet());
    Map<String, Set<String>> expected = NativeOps.expectations("bad_ops.cpp");
    assertFalse(expected.isEmpty(), "no EXPECT markers found in bad_ops.cpp");
    return expected.entrySet().stream()
        .map(e -> DynamicTest.dynamicTest(e.getKey() + " fails " + e.getValue(), () -> {
          Set<String> want = new TreeSet<>(e.getValue());
          want.retainAll(implemented);
          Set<String> got = bad.results().stream()
              .filter(r -> r.op().equals(e.getKey()) && r.outcome() == Outcome.FAILED)
              .map(CheckResult::check)
              .collect(Collectors.toCollection(TreeSet::new));
          assertEquals(want, got, "failed checks of " + e.getKey());
        }));
  }

  @Test
  void everyMarkerNamesAKnownOrPlannedCheckId() throws Exception {
    for (Set<String> ids : NativeOps.expectations("bad_ops.cpp").values()) {
      for (String id : ids) {
        assertTrue(id.matches("[a-z]+(\\.[a-z-]+)?"), "malformed check id in marker: " + id);
      }
    }
  }

  @Test
  void failuresFollowTheMessageShape() {
    List<CheckResult> failed = bad.results().stream().filter(r -> r.outcome() == Outcome.FAILED).toList();
    assertFalse(failed.isEmpty());
    for (CheckResult r : failed) {
      assertEquals("expected", r.facts().get(0).key(), r.toString());
      assertTrue(r.fact("but was").isPresent(), r.toString());
      assertTrue(r.fact("hint").isPresent(), r.toString());
    }
  }

  @Test
  void goodOpsPassEverythingOnEveryAvailableDevice() {
    List<CheckResult> notOk = good.results().stream()
        .filter(r -> r.outcome() == Outcome.FAILED || r.outcome() == Outcome.ERRORED)
        .toList();
    assertEquals(List.of(), notOk);
    assertTrue(good.count(Outcome.PASSED) > 0);
  }

  @Test
  void everySkipCarriesAReason() {
    Stream.concat(bad.results().stream(), good.results().stream())
        .filter(r -> r.outcome() == Outcome.SKIPPED)
        .forEach(r -> assertTrue(r.fact("reason").filter(s -> !s.isBlank()).isPresent(), r.toString()));
  }

  @Test
  void cudaIsSkippedWithAReasonWhenAbsent() {
    if (TorchRuntime.get().cudaAvailable()) {
      return;
    }
    List<CheckResult> cuda = good.results().stream().filter(r -> r.device().equals("cuda")).toList();
    assertFalse(cuda.isEmpty(), "cuda must be reported, not dropped");
    cuda.forEach(r -> {
      assertEquals(Outcome.SKIPPED, r.outcome(), r.toString());
      assertTrue(r.fact("reason").orElseThrow().contains("no CUDA device"), r.toString());
    });
  }

  @Test
  void aCheckWhosePrerequisiteFailedIsSkipped() {
    CheckResult r = bad.results().stream()
        .filter(x -> x.op().equals("bad_ops::no_kernel") && x.check().equals("registration.device-kernel")
            && x.device().equals("cpu"))
        .findFirst()
        .orElseThrow();
    assertEquals(Outcome.SKIPPED, r.outcome());
    assertEquals("requires registration.any-kernel, which failed", r.fact("reason").orElseThrow());
  }
}
