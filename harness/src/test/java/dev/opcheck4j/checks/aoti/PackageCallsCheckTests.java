package dev.opcheck4j.checks.aoti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.checks.PackageCheck;
import dev.opcheck4j.checks.PackageSubject;
import dev.opcheck4j.spec.PackageEntry;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.AotiPackage;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.SchemaBaseline;
import dev.opcheck4j.torch.SchemaText;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * aoti.calls and aoti.annotations on data alone, as the parent runs them: the fixture package (compiled with
 * libaoti_v1.so) against the schemas of each release of aoti_ops.cpp, written out here as its m.def lines are.
 */
class PackageCallsCheckTests {
  static final Path PACKAGE = NativeOps.repoRoot().resolve("fixtures/models/aoti/aoti_ops.pt2");
  static SchemaBaseline v1;
  static AotiPackage pkg;

  @BeforeAll
  static void read() throws Exception {
    v1 = SchemaBaseline.read(NativeOps.repoRoot().resolve("fixtures/baselines/aoti_v1.json"));
    pkg = AotiPackage.read(PACKAGE);
  }

  /** The ops of libaoti_v1.so, with {@code changed} (schemas) replacing theirs and {@code removed} gone. */
  static Map<String, PackageSubject.Registered> release(String lib, List<String> changed, String removed) {
    Map<String, PackageSubject.Registered> ops = new LinkedHashMap<>();
    for (SchemaBaseline.Entry e : v1.ops()) {
      ops.put(e.op(), new PackageSubject.Registered(SchemaText.parse(e.schema()), lib));
    }
    for (String s : changed) {
      OpSchema schema = SchemaText.parse(s);
      ops.put(schema.qualifiedName(), new PackageSubject.Registered(schema, lib));
    }
    ops.remove(removed);
    return ops;
  }

  static List<CheckResult> evaluate(PackageCheck check, Map<String, PackageSubject.Registered> ops, SchemaBaseline built) {
    PackageSubject s = new PackageSubject(pkg, PackageEntry.of(PACKAGE, "test"), ops,
        List.of(ops.values().iterator().next().library()), built, Set.of("cpu"), Optional.empty());
    return check.evaluatePackage(s).stream().map(v -> v.verdict().result(v.op(), check, CheckResult.NONE, "aoti_ops.pt2",
        0, SeverityPolicy.DEFAULT, null)).toList();
  }

  static List<CheckResult> findings(List<CheckResult> results) {
    return results.stream().filter(r -> r.outcome() == Outcome.FAILED || r.outcome() == Outcome.WARNING).toList();
  }

  @Test
  void theReleaseThePackageWasCompiledWithServesEveryCall() {
    List<CheckResult> calls = evaluate(new PackageCallsCheck(), release("libaoti_v1.so", List.of(), null), null);
    assertEquals(15, calls.size(), "one result per op the package calls");
    assertEquals(List.of(), findings(calls));
    assertTrue(calls.get(0).fact(dev.opcheck4j.api.Fact.NOT_CHECKED).orElseThrow().startsWith("alias annotations"), calls.get(0).toString());
    List<CheckResult> annotations = evaluate(new PackageAnnotationsCheck(), release("libaoti_v1.so", List.of(), null), null);
    assertEquals(List.of(), findings(annotations), "square_into writes out, and returns nothing: compiled as writing");
    assertEquals(15, calls.size());
  }

  @Test
  void aRemovedOpFailsNamingIt() {
    CheckResult r = only(evaluate(new PackageCallsCheck(), release("libaoti_v2_removed.so", List.of(), "aoti_ops::gone"),
        null));
    assertEquals("aoti_ops::gone", r.op());
    assertTrue(r.finding().actual().contains("Could not find schema for aoti_ops::gone."), r.toString());
    assertEquals("aoti_ops::gone(x: as_tensor) -> (as_tensor)", r.fact(PackageCallsCheck.CALL).orElseThrow());
  }

  @Test
  void aRetypedArgumentFailsNamingItAndBothTypes() {
    CheckResult r = only(evaluate(new PackageCallsCheck(), release("libaoti_v2_retyped.so",
        List.of("aoti_ops::retyped(Tensor x, float n) -> Tensor"), null), null));
    assertEquals("aoti_ops::retyped", r.op());
    assertEquals("n", r.fact(PackageCallsCheck.ARGUMENT).orElseThrow());
    assertEquals("n: as_int 2", r.fact(PackageCallsCheck.PACKAGE_SIDE).orElseThrow());
    assertEquals("float n (libaoti_v2_retyped.so)", r.fact(PackageCallsCheck.LIBRARY_SIDE).orElseThrow());
  }

  @Test
  void aRenamedArgumentFailsNamingBothNamesWhereLibtorchWouldOnlyStopInsideItself() {
    CheckResult r = only(evaluate(new PackageCallsCheck(), release("libaoti_v2_renamed.so",
        List.of("aoti_ops::renamed(Tensor x, float factor) -> Tensor"), null), null));
    assertEquals("aoti_ops::renamed", r.op());
    assertEquals("scale", r.fact(PackageCallsCheck.ARGUMENT).orElseThrow());
    assertEquals("scale: as_float 0.25", r.fact(PackageCallsCheck.PACKAGE_SIDE).orElseThrow());
    assertEquals("float factor (libaoti_v2_renamed.so)", r.fact(PackageCallsCheck.LIBRARY_SIDE).orElseThrow());
    assertTrue(r.finding().actual().contains("(renamed 'factor'?)"), r.toString());
  }

  @Test
  void anArgumentNowWrittenWarnsWithoutTheBaselineAndFailsWithIt() {
    Map<String, PackageSubject.Registered> mutates = release("libaoti_v2_mutates.so",
        List.of("aoti_ops::mutated(Tensor x, Tensor(a!) y) -> Tensor"), null);
    assertEquals(List.of(), findings(evaluate(new PackageCallsCheck(), mutates, null)),
        "the package records no annotation: without the baseline there is nothing to compare");
    CheckResult w = only(evaluate(new PackageAnnotationsCheck(), mutates, null));
    assertEquals(Outcome.WARNING, w.outcome());
    assertEquals("aoti_ops::mutated", w.op());
    assertEquals("y", w.fact(PackageCallsCheck.ARGUMENT).orElseThrow());
    assertEquals("y: as_tensor arg1_1", w.fact(PackageCallsCheck.PACKAGE_SIDE).orElseThrow());
    assertEquals("Tensor(a!) y (libaoti_v2_mutates.so)", w.fact(PackageCallsCheck.LIBRARY_SIDE).orElseThrow());

    CheckResult f = only(evaluate(new PackageCallsCheck(), mutates, v1));
    assertEquals(Outcome.FAILED, f.outcome());
    assertEquals("y", f.fact(PackageCallsCheck.ARGUMENT).orElseThrow());
    assertEquals("Tensor y (the baseline)", f.fact(PackageCallsCheck.PACKAGE_SIDE).orElseThrow());
    assertEquals("Tensor(a!) y (libaoti_v2_mutates.so)", f.fact(PackageCallsCheck.LIBRARY_SIDE).orElseThrow());
    assertEquals(List.of(), evaluate(new PackageAnnotationsCheck(), mutates, v1), "with the baseline aoti.calls compares");
  }

  @Test
  void aRemovedDefaultAndANewTrailingArgumentWithADefaultKeepThePackage() {
    for (String s : List.of("aoti_ops::defaulted(Tensor x, int n) -> Tensor",
        "aoti_ops::extended(Tensor x, float alpha=1.0) -> Tensor")) {
      Map<String, PackageSubject.Registered> ops = release("libaoti_v2.so", List.of(s), null);
      assertEquals(List.of(), findings(evaluate(new PackageCallsCheck(), ops, v1)), s);
      assertEquals(List.of(), findings(evaluate(new PackageAnnotationsCheck(), ops, null)), s);
    }
  }

  @Test
  void aNewArgumentWithoutADefaultOrOtherReturnsFail() {
    CheckResult noDefault = only(evaluate(new PackageCallsCheck(), release("l.so",
        List.of("aoti_ops::extended(Tensor x, float alpha) -> Tensor"), null), null));
    assertEquals("alpha", noDefault.fact(PackageCallsCheck.ARGUMENT).orElseThrow());
    assertEquals("(nothing for 'alpha')", noDefault.fact(PackageCallsCheck.PACKAGE_SIDE).orElseThrow());
    CheckResult returns = only(evaluate(new PackageCallsCheck(), release("l.so",
        List.of("aoti_ops::split_sign(Tensor x) -> Tensor"), null), null));
    assertEquals(PackageCallsCheck.RETURNS, returns.fact(PackageCallsCheck.ARGUMENT).orElseThrow());
    assertEquals("(as_tensor, as_tensor)", returns.fact(PackageCallsCheck.PACKAGE_SIDE).orElseThrow());
    CheckResult list = only(evaluate(new PackageCallsCheck(), release("l.so",
        List.of("aoti_ops::total(Tensor?[] xs) -> Tensor"), null), null), Outcome.PASSED);
    assertEquals("aoti_ops::total", list.op(), "Tensor?[] takes as_tensors too");
  }

  @Test
  void theProxyExecutorsTypeRules() {
    assertEquals(List.of("as_int", "as_sym_int", "as_float", "as_bool"), ProxyExecutorTypes.argument(SchemaText.parse(
        "a::b(Scalar s) -> Tensor").arguments().get(0).type()));
    assertEquals(List.of("as_none", "as_tensor"), ProxyExecutorTypes.argument(SchemaText.parse(
        "a::b(Tensor? t) -> Tensor").arguments().get(0).type()));
    assertEquals(List.of("as_ints", "as_sym_ints"), ProxyExecutorTypes.argument(SchemaText.parse(
        "a::b(SymInt[] t) -> Tensor").arguments().get(0).type()));
    assertEquals(List.of(), ProxyExecutorTypes.argument(SchemaText.parse(
        "a::b(Dict(str, Tensor) d) -> Tensor").arguments().get(0).type()), "nothing the executor fills");
  }

  @Test
  void libtorchsOwnWordsAreSaidInOurs() {
    PackageSubject s = new PackageSubject(pkg, PackageEntry.of(PACKAGE, "test"),
        release("libaoti_v2_retyped.so", List.of("aoti_ops::retyped(Tensor x, float n) -> Tensor"), null),
        List.of("libaoti_v2_retyped.so"), null, Set.of("cpu"), Optional.empty());
    assertEquals("the package passes argument 'n' (#1, float n) of aoti_ops::retyped as as_int, and the library's"
        + " schema takes as_float there: libtorch's loader refuses the package", LoaderMessage.explain("Expected extern"
        + " kernel aoti_ops::retyped to have serialized argument type as_float for argument 1 but got as_int", s));
    String internal = LoaderMessage.explain("0 INTERNAL ASSERT FAILED at \"/home/runner/work/pytorch/aten/src/ATen/core/"
        + "ivalue.h\":544, please report a bug to PyTorch. expected double", s);
    assertFalse(internal.contains("report a bug"), internal);
    assertTrue(internal.startsWith("libtorch stopped inside its own code (an internal check of ivalue.h:544, \"expected"
        + " double\")"), internal);
    assertEquals("Error in dlopen: <in the package>/aoti_ops/data/aotinductor/model/c.wrapper.so: file too short",
        LoaderMessage.explain("Error in dlopen: /tmp/r/worker-1.tmp/aotinductor_V6CMah/aoti_ops/data/aotinductor/model/"
            + "c.wrapper.so: file too short", s));
    assertEquals("input 0 has size 5 in dimension 0, where the package was compiled for 4: a package takes the shapes"
        + " it was exported with (torch.export.Dim marks a size dynamic)", LoaderMessage.explain(
        "input_handles[0]: unmatched dim value at 0, expected: 4, but got: 5", s));
  }

  private static CheckResult only(List<CheckResult> results) {
    List<CheckResult> found = findings(results);
    assertEquals(1, found.size(), found.toString());
    return found.get(0);
  }

  private static CheckResult only(List<CheckResult> results, Outcome outcome) {
    List<CheckResult> found = results.stream().filter(r -> r.outcome() == outcome && r.op().equals("aoti_ops::total"))
        .toList();
    assertEquals(1, found.size(), results.toString());
    assertEquals(List.of(), findings(results));
    return found.get(0);
  }
}
