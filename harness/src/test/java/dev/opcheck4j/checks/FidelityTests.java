package dev.opcheck4j.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.Rerun;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.CorpusRun;
import dev.opcheck4j.testing.NativeOps;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Where the harness must agree with PyTorch's own rules (issue 17 §4): each class has a good op
 * opcheck passes and a bad op it fails, in native-ops' fidelity_ops.cpp. The good ops have no finding
 * and no error anywhere; each bad op has findings in exactly the checks its {@code // EXPECT:} marker
 * lists.
 */
class FidelityTests {
  private static CorpusRun corpus;
  private static RunReport report;

  @BeforeAll
  static void run() throws Exception {
    corpus = CorpusRun.of("fidelity/fidelity_ops.json", CorpusTests.TRIES);
    report = corpus.report();
  }

  @TestFactory
  Stream<DynamicTest> eachOpHasFindingsInExactlyItsMarkedChecks() throws Exception {
    List<String> ops = SpecReader.read(NativeOps.spec("fidelity/fidelity_ops.json")).ops().stream()
        .map(o -> o.op()).toList();
    assertFalse(ops.isEmpty());
    return corpus.eachOpHasFindingsInExactlyItsMarkedChecks("fidelity_ops.cpp", ops);
  }

  @Test
  void aVoidOpThatOnlyWritesItsArgumentsNeedsNoMetaKernel() {
    String op = "fidelity_ops::void_scale_";
    for (CheckResult r : List.of(corpus.one(op, "fake.missing", "-"), corpus.one(op, "registration.device-kernel", "meta"))) {
      assertEquals(Outcome.PASSED, r.outcome(), r.toString());
      assertTrue(r.fact("note").orElseThrow().contains("trivial fake implementation"), r.toString());
    }
    // and the checks that call it on meta ran, seeing it return nothing as FakeTensorMode does
    assertEquals(Outcome.PASSED, corpus.one(op, "kernel.error", "meta").outcome());
    CheckResult fake = corpus.one(op, "fake.metadata", "cpu");
    assertEquals(Outcome.PASSED, fake.outcome(), fake.toString());
  }

  @Test
  void anOpThatWritesAnArgumentAndReturnsATensorStillNeedsOne() {
    CheckResult r = corpus.one("fidelity_ops::add_into_", "fake.missing", "-");
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    assertTrue(r.fact("hint").orElseThrow().contains("returns nothing ('-> ()') needs none"), r.toString());
  }

  @Test
  void aViewReturnedByACompositeImplicitAutogradKernelIsNoAliasingDefect() {
    for (String check : List.of("alias.undeclared", "alias.returns-input")) {
      CheckResult r = corpus.one("fidelity_ops::cia_unsqueeze", check, "cpu");
      assertEquals(Outcome.PASSED, r.outcome(), r.toString());
      assertTrue(r.fact("note").orElseThrow().contains("CompositeImplicitAutograd"), r.toString());
    }
    CheckResult explicit = corpus.one("fidelity_ops::cea_unsqueeze", "alias.undeclared", "cpu");
    assertEquals(Outcome.FAILED, explicit.outcome(), explicit.toString());
    assertTrue(explicit.fact("but was").orElseThrow().contains("is a view of 'x'"), explicit.toString());
  }

  @Test
  void nonTensorOutputsArePartOfTheMetaContract() {
    CheckResult count = corpus.one("fidelity_ops::count_meta_wrong", "fake.metadata", "cpu");
    assertEquals(Outcome.FAILED, count.outcome(), count.toString());
    assertEquals("output 1 is 2 on meta, 6 real", count.fact("but was").orElseThrow(), count.toString());
    CheckResult cpu = corpus.one("fidelity_ops::reports_cpu", "fake.metadata", "cpu");
    assertEquals(Outcome.FAILED, cpu.outcome(), cpu.toString());
    assertEquals("output 0 is false on meta, true real", cpu.fact("but was").orElseThrow(), cpu.toString());
    CheckResult facts = corpus.one("fidelity_ops::shape_facts", "fake.metadata", "cpu");
    assertEquals(Outcome.PASSED, facts.outcome(), facts.toString());
    assertEquals("5", facts.fact("outputs compared").orElseThrow(), facts.toString());
  }

  @Test
  void aCrashReportNamesTheStepAndQuotesWhatTheKernelSaidBeforeDying() {
    CheckResult r = corpus.of("fidelity_ops::meta_aborts_large").filter(x -> x.check().equals("kernel.crash"))
        .findFirst().orElseThrow();
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    assertEquals("the meta kernel for fake.metadata", r.fact("check").orElseThrow(), r.toString());
    assertTrue(r.fact("root cause").orElseThrow().startsWith("meta_aborts_large: no Meta rule for "), r.toString());
    assertTrue(r.fact("exit status").orElseThrow().contains("SIGABRT"), r.toString());
    // the run gives what reproduces it; a front end writes the rerun line from that
    assertTrue(r.withRerun(Rerun.CLI).fact("rerun").orElseThrow().contains("--check fake.metadata"), r.toString());
  }

  @Test
  void shrinkingDropsTheLayoutAndDtypeACrashDoesNotNeed() {
    // meta_aborts_large dies on more than 8 elements, whatever their layout or dtype; at this seed the
    // first crashing try is transposed ("strides [1, 2]"), and the minimal example is not
    CheckResult r = corpus.of("fidelity_ops::meta_aborts_large").filter(x -> x.check().equals("kernel.crash"))
        .findFirst().orElseThrow();
    String minimal = r.fact("minimal example").orElseThrow();
    assertTrue(minimal.matches("x=float32\\[\\d+, \\d+\\]  \\(shrunk in (1 step|\\d+ steps)\\)"), minimal);
    assertTrue(r.fact("example").orElseThrow().matches(".*x=float(32|64)\\[\\d+, \\d+\\] (strides|offset).*"),
        "the try that crashed first was not contiguous: " + r.fact("example").orElseThrow());
  }

  @Test
  void anOpWhoseContiguousRunsAlreadyDifferFailsDeterminismAloneNotNoncontiguous() {
    String op = "fidelity_ops::stale_element";
    assertEquals(Outcome.FAILED, corpus.one(op, "determinism", "cpu").outcome());
    CheckResult layout = corpus.one(op, "noncontiguous", "cpu");
    assertEquals(Outcome.SKIPPED, layout.outcome(), layout.toString());
    assertEquals("requires determinism, which failed", layout.reason());
    // nor on the generated inputs: their noncontiguous run waits for determinism as well
    assertEquals(List.of(), corpus.of(op).filter(r -> r.check().equals("noncontiguous") && r.outcome() == Outcome.FAILED).toList());
  }

  @Test
  void aKernelThatDiesOnlyOnBoolIsFoundWithoutAVaryDtypeLine() {
    // the spec's example is float32 and says nothing about dtypes; domain discovery probes bool
    CheckResult r = corpus.of("fidelity_ops::abort_on_bool").filter(x -> x.check().equals("kernel.crash"))
        .findFirst().orElseThrow();
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    assertEquals("x=bool[2, 3]  (shrunk in 0 steps)", r.fact("minimal example").orElseThrow());
    assertTrue(r.fact("example").orElseThrow().contains("a probe of the op's domain: float32 inputs as bool"), r.toString());
    assertEquals("abort_on_bool: no rule for bool inputs", r.fact("root cause").orElseThrow());
  }
  @Test
  void noneForTrailingOptionalTensorsRunsInEveryExampleAndInGeneratedTries() {
    // issue 28: an example whose trailing Tensor? arguments were null aborted the run with a harness error
    // once a generated try was rejected; here every example, None first, middle, last or by keyword, runs
    String op = "fidelity_ops::optional_affine";
    List<CheckResult> examples = corpus.of(op).filter(r -> r.check().equals("kernel.error") && r.device().equals("cpu"))
        .toList();
    assertEquals(4, examples.size(), examples.toString());
    examples.forEach(r -> assertEquals(Outcome.PASSED, r.outcome(), r.toString()));
    CheckResult domain = corpus.of(op).filter(r -> r.check().equals("generate.domain") && r.device().equals("cpu"))
        .findFirst().orElseThrow();
    assertEquals(Outcome.PASSED, domain.outcome(), domain.toString());
    assertEquals(String.valueOf(CorpusTests.TRIES), domain.fact("tries").orElseThrow(), domain.toString());
    // the tries the kernel rejected (an empty x) are the path that broke: some were rejected, and blamed
    assertTrue(!domain.fact("discarded").orElseThrow().startsWith("0"), domain.toString());
    List<CheckResult> generated = corpus.of(op).filter(r -> r.example().startsWith("generated")).toList();
    assertTrue(generated.stream().anyMatch(r -> r.check().equals("fake.metadata") && r.outcome() == Outcome.PASSED),
        generated.toString());
  }

  @Test
  void aCompositeThatChecksItsDeviceIsNotFailedByTheMetaStandIn() {
    // real opcheck 2.14.1: test_faketensor SUCCESS (FakeTensor keeps the device it fakes); opcheck4j's meta
    // tensors say meta, so where the composite rejects them the result is Skipped with the reason
    String op = "fidelity_ops::cia_checks_cpu";
    for (CheckResult r : List.of(corpus.one(op, "fake.metadata", "cpu"), corpus.one(op, "kernel.error", "meta"))) {
      assertEquals(Outcome.SKIPPED, r.outcome(), r.toString());
      assertTrue(r.reason().startsWith("the CompositeImplicitAutograd kernel raised on meta inputs it accepts on cpu"),
          r.reason());
      assertTrue(r.reason().contains("cia_checks_cpu: pos must be a CPU tensor"), r.reason());
      assertTrue(r.reason().contains("FakeTensor keeps the device it fakes"), r.reason());
    }
    assertEquals(Outcome.PASSED, corpus.one(op, "kernel.error", "cpu").outcome());
    assertEquals(Outcome.PASSED, corpus.one(op, "gradcheck.jacobian", "cpu").outcome());
    // its twin with a Meta kernel of its own fails, as real opcheck's test_faketensor does
    CheckResult meta = corpus.one("fidelity_ops::meta_checks_cpu", "fake.metadata", "cpu");
    assertEquals(Outcome.FAILED, meta.outcome(), meta.toString());
    assertTrue(meta.fact("but was").orElseThrow().contains("meta_checks_cpu: pos must be a CPU tensor"), meta.toString());
  }
}
