package dev.opcheck4j.checks;

import dev.opcheck4j.checks.builtin.BuiltinChecks;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
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
 * Tests the tester on the native-ops corpus: each known-bad op has findings in exactly the checks its
 * {@code // EXPECT:} marker lists (failures for error checks, warnings for warning checks), and no
 * good op fails anything.
 */
class CorpusTests {
  /** Generated inputs per op and device: enough to catch the shape-hard-coding meta kernel. */
  static final int TRIES = 20;

  private static RunReport bad;
  private static RunReport good;

  @BeforeAll
  static void runCorpus() throws Exception {
    bad = run(2, List.of(NativeOps.spec("bad/bad_ops.json")));
    good = run(2, List.of(NativeOps.spec("my_ops.json"), NativeOps.spec("warp_perspective.json"),
        NativeOps.spec("good_ops.json"), NativeOps.spec("ordinary_ops.json")));
  }

  /** Runs the specs through worker processes, as the command line does. */
  private static RunReport run(int jobs, List<Path> specs) throws Exception {
    RunRequest.Builder request = RunRequest.builder().seed(7L).tries(TRIES).jobs(jobs);
    specs.forEach(request::spec);
    RunOutcome outcome = Launcher.execute(request.build(), dev.opcheck4j.api.RunListener.NONE);
    assertEquals(List.of(), outcome.inputErrors());
    return outcome.report();
  }

  /** Same seed, one worker instead of two: the same results in the same order. */
  @Test
  void theSameSeedGivesTheSameResults() throws Exception {
    RunReport again = run(1, List.of(NativeOps.spec("bad/bad_ops.json")));
    List<String> first = comparable(bad);
    List<String> second = comparable(again);
    assertEquals(first.size(), second.size());
    for (int i = 0; i < first.size(); i++) {
      assertEquals(first.get(i), second.get(i), "result " + i + " differs between two runs with one seed");
    }
  }

  private static List<String> devicesAsLabels(RunReport r) {
    return r.results().stream().map(CheckResult::device).distinct().toList();
  }

  private static List<Device> devicesOf(RunReport r) {
    return devicesAsLabels(r).stream().map(Device::parse).flatMap(java.util.Optional::stream).toList();
  }

  /**
   * Everything but timings. The two deliberately nondeterministic ops keep state across calls in
   * the process, so only their outcomes and fact keys (not the numbers) are compared.
   */
  private static List<String> comparable(RunReport r) {
    Set<String> stateful = Set.of("bad_ops::nondeterministic", "bad_ops::grad_nondeterministic");
    return r.results().stream()
        .map(x -> String.join("|", x.op(), x.check(), x.device(), x.example(), x.outcome().label(),
            stateful.contains(x.op()) ? x.facts().stream().map(f -> f.key()).toList().toString() : x.facts().toString()))
        .toList();
  }

  @Test
  void theWrongGradientIsLocatedWithBothNumbers() {
    CheckResult r = bad.results().stream()
        .filter(x -> x.op().equals("bad_ops::square_wrong_grad") && x.check().equals("gradcheck.jacobian")
            && x.device().equals("cpu"))
        .findFirst().orElseThrow();
    assertEquals(Outcome.FAILED, r.outcome());
    String butWas = r.fact("but was").orElseThrow();
    java.util.regex.Matcher m = java.util.regex.Pattern
        .compile("d output 0\\[(\\d+), (\\d+)\\] / d x\\[(\\d+), (\\d+)\\]: analytical (\\S+), numerical (\\S+)")
        .matcher(butWas);
    assertTrue(m.matches(), butWas);
    assertEquals(m.group(1) + m.group(2), m.group(3) + m.group(4), "d(x*x)/dx is diagonal: " + butWas);
    double analytical = Double.parseDouble(m.group(5));
    double numerical = Double.parseDouble(m.group(6));
    assertEquals(1.5, analytical / numerical, 1e-6, "the op's gradient is 3x where 2x is right");
    assertEquals("fast, then slow to locate the error", r.fact("mode").orElseThrow());
    assertTrue(r.fact("calls").orElseThrow().matches("\\d+ forward, \\d+ backward"), r.toString());
  }

  @Test
  void theBadSpecCoversEveryMarkedOp() throws Exception {
    Set<String> inSpec = SpecReader.read(NativeOps.spec("bad/bad_ops.json")).ops().stream()
        .map(o -> o.op()).collect(Collectors.toSet());
    for (String op : NativeOps.expectations("bad_ops.cpp").keySet()) {
      if (!op.equals("bad_ops::ghost")) {
        assertTrue(inSpec.contains(op), op + " has an EXPECT marker but no entry in bad_ops.json");
      }
    }
  }

  private static final String DIFFERENTIABLE = dev.opcheck4j.checks.autograd.DifferentiableCheck.ID;

  @TestFactory
  Stream<DynamicTest> eachBadOpFailsExactlyItsMarkedChecks() throws Exception {
    Set<String> implemented = BuiltinChecks.all().stream().map(Check::id).collect(Collectors.toSet());
    Map<String, Set<String>> expected = NativeOps.expectations("bad_ops.cpp");
    assertFalse(expected.isEmpty(), "no EXPECT markers found in bad_ops.cpp");
    return expected.entrySet().stream()
        .map(e -> DynamicTest.dynamicTest(e.getKey() + " fails " + e.getValue(), () -> {
          Set<String> want = new TreeSet<>(e.getValue());
          want.retainAll(implemented);
          // a finding is FAILED for an error check, WARNING for a warning check and NOTE for a note check, as its
          // severity says
          Set<String> got = bad.results().stream()
              .filter(r -> r.op().equals(e.getKey()) && dev.opcheck4j.testing.CorpusRun.finding(r))
              .peek(r -> assertEquals(dev.opcheck4j.api.SeverityPolicy.DEFAULT.findingOutcome(BuiltinChecks.byId(r.check()).orElseThrow().info()), r.outcome(),
                  "the outcome of a finding follows its check's severity: " + r))
              .map(CheckResult::check)
              .collect(Collectors.toCollection(TreeSet::new));
          // every float op of the corpus with backend kernels only has gradients that stop (a warning by
          // design); it is the defect only of the op marked for it
          if (!want.contains(DIFFERENTIABLE)) {
            got.remove(DIFFERENTIABLE);
          }
          // likewise a Meta kernel sized with sizes() specialises the trace (a note by design)
          dev.opcheck4j.testing.CorpusRun.UBIQUITOUS_NOTES.stream().filter(w -> !want.contains(w)).forEach(got::remove);
          assertEquals(want, got, "checks with findings on " + e.getKey());
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
    List<CheckResult> failed = bad.results().stream()
        .filter(dev.opcheck4j.testing.CorpusRun::finding).toList();
    assertFalse(failed.isEmpty());
    assertTrue(failed.stream().anyMatch(r -> r.outcome() == Outcome.WARNING), "warnings have the same shape");
    assertTrue(failed.stream().anyMatch(r -> r.outcome() == Outcome.NOTE), "notes have the same shape");
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

  /**
   * The tutorial's op in its classic form (warp_perspective.cpp: TORCH_LIBRARY, OpenCV, built with the runtime's
   * headers), loaded beside the stable-ABI my_ops, which defines another overload of its name: it runs every check
   * a non-differentiable op has on cpu and meta, the TorchScript call and round trip included, and passes them.
   */
  @Test
  void theTutorialsClassicOpPassesEveryCheckOnCpuAndMetaTorchScriptIncluded() {
    String op = "my_ops::warp_perspective.classic";
    for (String check : List.of("torchscript.call", "torchscript.roundtrip", "fake.metadata", "noncontiguous",
        "mutation.undeclared", "autograd.registration", "memory.bounds")) {
      CheckResult r = good.results().stream()
          .filter(x -> x.op().equals(op) && x.check().equals(check) && x.device().equals("cpu")).findFirst()
          .orElseThrow(() -> new AssertionError("no " + check + " on cpu for " + op));
      assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    }
    for (String check : List.of("registration.device-kernel", "kernel.error", "autograd.registration")) {
      CheckResult r = good.results().stream()
          .filter(x -> x.op().equals(op) && x.check().equals(check) && x.device().equals("meta")).findFirst()
          .orElseThrow(() -> new AssertionError("no " + check + " on meta for " + op));
      assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    }
    // no warning either; two notes, both the tutorial's code as it is: its Meta kernel sizes the output with
    // size(d) (trace.specialization), and it reads its inputs through the writable data_ptr<float>(), which
    // materializes a lazy clone (memory.cow-input)
    assertEquals(List.of(), good.results().stream().filter(x -> x.op().equals(op)
        && (x.outcome() == Outcome.WARNING || x.outcome() == Outcome.FAILED || x.outcome() == Outcome.ERRORED)).toList());
    assertEquals(java.util.Set.of("trace.specialization", "memory.cow-input"), good.results().stream()
        .filter(x -> x.op().equals(op) && x.outcome() == Outcome.NOTE).map(CheckResult::check)
        .collect(Collectors.toSet()));
  }

  @Test
  void everySkipCarriesAReason() {
    Stream.concat(bad.results().stream(), good.results().stream())
        .filter(r -> r.outcome() == Outcome.SKIPPED)
        .forEach(r -> assertTrue(r.fact("reason").filter(s -> !s.isBlank()).isPresent(), r.toString()));
  }

  @Test
  void cudaIsSkippedWithAReasonWhenAbsent() {
    List<CheckResult> cuda = good.results().stream().filter(r -> r.device().equals("cuda")).toList();
    assertFalse(cuda.isEmpty(), "cuda must be reported, not dropped");
    if (cuda.stream().anyMatch(r -> r.outcome() != Outcome.SKIPPED && r.check().startsWith("registration"))) {
      return; // a GPU machine runs them
    }
    cuda.forEach(r -> {
      assertEquals(Outcome.SKIPPED, r.outcome(), r.toString());
      String reason = r.fact("reason").orElseThrow();
      assertTrue(reason.contains("no CUDA device") || reason.startsWith("skipped by the spec: "), r.toString());
    });
  }

  private static CheckResult failed(String op, String check) {
    return bad.results().stream()
        .filter(x -> x.op().equals(op) && x.check().equals(check) && x.outcome() == Outcome.FAILED)
        .findFirst().orElseThrow(() -> new AssertionError(op + " did not fail " + check));
  }

  @Test
  void aMetaKernelThatSwapsTheDimsOfASquareExampleIsCaughtWithAMinimalNonSquareExample() {
    CheckResult r = failed("bad_ops::meta_swaps_square", "fake.metadata");
    assertTrue(r.example().startsWith("generated from"), r.toString());
    assertTrue(r.fact("but was").orElseThrow().contains("sizes"), r.toString());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("x=float32\\[(\\d+), (\\d+)\\]")
        .matcher(r.fact("minimal example").orElseThrow());
    assertTrue(m.find(), r.toString());
    assertTrue(!m.group(1).equals(m.group(2)), "the minimal example is not square: " + r);
    assertTrue(Integer.parseInt(m.group(1)) + Integer.parseInt(m.group(2)) <= 1, "and minimal: " + r);
  }

  @Test
  void theStableAbisScalarLimitBlamesTheRuntimeWithTheWorkaround() {
    CheckResult r = failed("bad_ops::scalar_arg", "kernel.error");
    assertTrue(r.fact("but was").orElseThrow().contains("cannot pass a Scalar argument ('s')"), r.toString());
    assertTrue(r.fact("hint").orElseThrow().contains("not a bug in the kernel"), r.toString());
    assertTrue(r.fact("hint").orElseThrow().contains("float (or a 0-dim Tensor)"), r.toString());
  }

  @Test
  void aDeclaredViewIsNotFunctionalizableAndAReturnedMutableInputTripsOnlyThat() {
    assertTrue(failed("bad_ops::declared_view", "schema.functionalizable").fact("but was").orElseThrow()
        .contains("Found a custom (non-ATen) operator whose output has alias annotations"));
    CheckResult r = bad.results().stream().filter(x -> x.op().equals("bad_ops::fill_ret")
        && x.check().equals("alias.returns-input") && x.device().equals("cpu") && !x.example().startsWith("generated"))
        .findFirst().orElseThrow();
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertTrue(r.fact("note").orElseThrow().contains("schema.functionalizable"), r.toString());
  }

  @Test
  void correctOpsGetOnlyWarningsAndNotesTheirPreconditionsExplain() {
    List<CheckResult> warnings = good.results().stream()
        .filter(r -> r.op().startsWith("ordinary::") && (r.outcome() == Outcome.WARNING || r.outcome() == Outcome.NOTE))
        .toList();
    assertFalse(warnings.isEmpty(), "the ordinary corpus has preconditions, so some warnings");
    for (CheckResult w : warnings) {
      if (w.check().equals("autograd.differentiable")) {
        // backend kernels only: gradients stop there, which opcheck passes and the spec may declare
        assertTrue(w.fact("but was").orElseThrow().startsWith("gradients stop at this op"), w.toString());
        continue;
      }
      if (w.check().equals("memory.cow-input")) {
        // stable-ABI kernels that read their input through data_ptr(), the writable accessor: right, and a
        // note (PyTorch asks it of its own ops only; docs/checks/memory.cow-input.md)
        assertTrue(w.finding().actual().contains("materialized in the forward call"), w.toString());
        continue;
      }
      if (w.check().equals("trace.specialization")) {
        // a Meta kernel that sizes its output with sizes(): torch.compile specialises on the guard it names
        assertTrue(w.fact("guards").orElseThrow().contains("Eq(s"), w.toString());
        continue;
      }
      assertTrue(Set.of("noncontiguous.rejected", "fake.permissive").contains(w.check()), w.toString());
      // a rejected layout is a warning, a Meta kernel that does not repeat a precondition a note
      assertEquals(w.check().equals("fake.permissive") ? Outcome.NOTE : Outcome.WARNING, w.outcome(), w.toString());
      // every warning quotes the kernel's own precondition message
      assertTrue(w.facts().stream().anyMatch(f -> f.value().contains(": " + w.op().substring("ordinary::".length()) + ":")
          || f.value().contains(w.op().substring("ordinary::".length()) + ": ")), w.toString());
    }
    CheckResult scale = good.results().stream().filter(r -> r.op().equals("ordinary::scale")
        && r.check().equals("noncontiguous.rejected") && r.device().equals("cpu")).findFirst().orElseThrow();
    assertEquals(Outcome.SKIPPED, scale.outcome(), "its spec declares the domain contiguous: " + scale);
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

  /**
   * An op the spec declares non-differentiable: every gradient check is skipped because of that, the ones
   * that require gradcheck.jacobian and the multi-output one included, so coverage shows the family as
   * skipped by design, not as never run.
   */
  @Test
  void anOpDeclaredNonDifferentiableHasItsGradientFamilySkippedByDesign() {
    var entries = good.coverage().of("good_ops::add_scalar").stream()
        .filter(e -> e.family().equals("gradcheck") && "cpu".equals(e.device())).toList();
    assertEquals(1, entries.size(), entries.toString());
    assertFalse(entries.get(0).ran(), entries.toString());
    assertTrue(entries.get(0).bySpec(), entries.toString());
    CheckResult gradgrad = good.results().stream()
        .filter(x -> x.op().equals("good_ops::add_scalar") && x.check().equals("gradcheck.gradgrad")
            && "cpu".equals(x.device()))
        .findFirst().orElseThrow();
    assertEquals("skipped by the spec: requires gradcheck.jacobian, which skipped", gradgrad.reason());
  }
}
