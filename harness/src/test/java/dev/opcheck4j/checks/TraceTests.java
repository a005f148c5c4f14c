package dev.opcheck4j.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
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
 * The trace.* checks (issue 42) on native-ops' trace_ops.cpp (stable ABI) and trace_classic_ops.cpp
 * (classic code): each bad op has findings in exactly the checks its {@code // EXPECT:} marker lists, each
 * good twin none; real PyTorch 2.13.0's verdicts on the same sources are in
 * fixtures/specs/trace/real-pytorch.json.
 */
class TraceTests {
  private static CorpusRun stable;
  private static CorpusRun classic;

  @BeforeAll
  static void run() throws Exception {
    stable = CorpusRun.of("trace/trace_ops.json", CorpusTests.TRIES);
    classic = CorpusRun.of("trace/trace_classic.json", CorpusTests.TRIES);
  }

  @TestFactory
  Stream<DynamicTest> eachStableOpHasFindingsInExactlyItsMarkedChecks() throws Exception {
    List<String> ops = SpecReader.read(NativeOps.spec("trace/trace_ops.json")).ops().stream().map(o -> o.op()).toList();
    assertFalse(ops.isEmpty());
    return stable.eachOpHasFindingsInExactlyItsMarkedChecks("trace_ops.cpp", ops);
  }

  @TestFactory
  Stream<DynamicTest> eachClassicOpHasFindingsInExactlyItsMarkedChecks() throws Exception {
    List<String> ops = SpecReader.read(NativeOps.spec("trace/trace_classic.json")).ops().stream().map(o -> o.op()).toList();
    assertFalse(ops.isEmpty());
    return classic.eachOpHasFindingsInExactlyItsMarkedChecks("trace_classic_ops.cpp", ops);
  }

  @Test
  void aMetaKernelReadingNumelFailsNamingTheCallAndTheArgument() {
    CheckResult r = stable.one("trace_ops::flatten_numel_meta", "trace.symbolic-sizes", "cpu");
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    assertEquals("numel()", r.fact("call").orElseThrow(), r.toString());
    assertTrue(r.finding().actual().contains("argument 'x'"), r.toString());
    assertTrue(r.fact("traced kernel").orElseThrow().startsWith("Meta"), r.toString());
  }

  @Test
  void aCatchAllReadingNumelFailsAndItsSymNumelTwinPasses() {
    CheckResult bad = classic.one("trace_classic::flatten_numel", "trace.symbolic-sizes", "cpu");
    assertEquals(Outcome.FAILED, bad.outcome(), bad.toString());
    assertTrue(bad.fact("traced kernel").orElseThrow().startsWith("CompositeImplicitAutograd"), bad.toString());
    CheckResult good = classic.one("trace_classic::flatten_sym_numel", "trace.symbolic-sizes", "cpu");
    assertEquals(Outcome.PASSED, good.outcome(), good.toString());
    assertEquals("[s0*s1]", good.fact("output 0").orElseThrow(), good.toString());
  }

  @Test
  void aSpecialisingMetaKernelIsAWarningNamingTheGuard() {
    CheckResult r = stable.one("trace_ops::copy_sizes_meta", "trace.specialization", "cpu");
    assertEquals(Outcome.WARNING, r.outcome(), r.toString());
    assertTrue(r.fact("guards").orElseThrow().contains("Eq(s0, 2) (sizes() on argument 'x')"), r.toString());
    CheckResult twin = stable.one("trace_ops::copy_like_meta", "trace.specialization", "cpu");
    assertEquals(Outcome.PASSED, twin.outcome(), twin.toString());
  }

  @Test
  void aBranchOnANonzeroCountIsADataDependentGuard() {
    CheckResult r = classic.one("trace_classic::double_if_any", "trace.data-dependent", "cpu");
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    assertTrue(r.fact("guard").orElseThrow().contains("data-dependent expression u0"), r.toString());
    CheckResult twin = classic.one("trace_classic::zeros_per_nonzero", "trace.data-dependent", "cpu");
    assertEquals(Outcome.PASSED, twin.outcome(), twin.toString());
  }

  @Test
  void aDataReadWhileTracedFailsNamingTheArgument() {
    for (CorpusRun run : List.of(stable, classic)) {
      String op = run == stable ? "trace_ops::head_by_value" : "trace_classic::zeros_by_value";
      CheckResult r = run.one(op, "trace.data", "cpu");
      assertEquals(Outcome.FAILED, r.outcome(), r.toString());
      assertTrue(r.finding().actual().contains("argument 'x'"), r.toString());
    }
  }

  /**
   * Issue 52: an inner custom op whose Meta kernel sizes its output from size(0) and an int gives concrete
   * sizes, as FakeTensor's hint-after-guard does, so numel() on that output passes (real PyTorch 2.13.0:
   * test_aot_dispatch_dynamic SUCCESS); one whose Meta kernel keeps the sizes symbolic (empty_like) fails,
   * naming the aten call and the inner op (PyTorch: "Cannot call numel() on tensor with symbolic sizes").
   */
  @Test
  void numelOnAnInnerOpsOutputPassesWhenItsMetaKernelSizedItFromIntsAndFailsWhenItKeptTheSymbols() {
    for (CorpusRun run : List.of(stable, classic)) {
      String ns = run == stable ? "trace_ops" : "trace_classic";
      CheckResult good = run.one(ns + "::pool_rows", "trace.symbolic-sizes", "cpu");
      assertEquals(Outcome.PASSED, good.outcome(), good.toString());
      assertEquals("[3, 2]", good.fact("output 0").orElseThrow(), good.toString());
      CheckResult bad = run.one(ns + "::pool_like", "trace.symbolic-sizes", "cpu");
      assertEquals(Outcome.FAILED, bad.outcome(), bad.toString());
      assertEquals("numel()", bad.fact("call").orElseThrow(), bad.toString());
      assertTrue(bad.finding().actual().contains("the output of aten::empty_like (called by " + ns + "::pool_like_impl)"),
          bad.toString());
    }
  }

  /**
   * An op whose only kernel is at Autograd (a custom autograd function calling an inner op through the
   * dispatcher) runs on cpu and meta through it, as PyTorch's dispatcher and FakeTensorMode run it
   * (test_faketensor: SUCCESS): it has a kernel for both, and the trace enters that kernel, the tensors
   * reporting the device under test.
   */
  @Test
  void anOpWithOnlyAnAutogradKernelIsServedOnEachDeviceAndTracedThroughIt() {
    for (String device : List.of("cpu", "meta")) {
      CheckResult kernel = classic.one("trace_classic::pool_rows", "registration.device-kernel", device);
      assertEquals(Outcome.PASSED, kernel.outcome(), kernel.toString());
      assertTrue(kernel.fact("kernel").orElseThrow().startsWith("Autograd"), kernel.toString());
    }
    CheckResult fake = classic.of("trace_classic::pool_rows").filter(r -> r.check().equals("fake.missing")).findFirst().orElseThrow();
    assertEquals(Outcome.PASSED, fake.outcome(), fake.toString());
    CheckResult traced = classic.one("trace_classic::pool_rows", "trace.symbolic-sizes", "cpu");
    assertEquals("Autograd (symbolic tensors report cpu)", traced.fact("traced kernel").orElseThrow(), traced.toString());
  }
}
