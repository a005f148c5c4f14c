package dev.opcheck4j.checks.reference;

import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.testing.CheckTestHelper;
import dev.opcheck4j.testing.NativeOps;
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
 * reference.values: the op that computes cos where its name and reference say sin keeps every contract
 * and fails only here, on a generated input shrunk to a minimal example; the known-good ops (an
 * expression, a tuple of two outputs, the def form for an (a!) argument) pass everything; a reference
 * that does not compile or fit its op stops the run before it starts.
 */
class ReferenceValuesTests {
  private static final String SPEC = "values/value_ops.json";
  private static RunReport report;

  @BeforeAll
  static void runValueOps() throws Exception {
    report = run(NativeOps.spec(SPEC)).report();
  }

  private static RunOutcome run(Path spec) throws Exception {
    RunRequest request = RunRequest.builder().seed(7L).tries(20).jobs(1).spec(spec).build();
    RunOutcome outcome = Launcher.execute(request, RunListener.NONE);
    assertEquals(List.of(), outcome.inputErrors());
    return outcome;
  }

  private static Set<String> findings(RunReport r, String op) {
    return r.results().stream()
        .filter(x -> x.op().equals(op) && (dev.opcheck4j.testing.CorpusRun.finding(x) || x.outcome() == Outcome.ERRORED))
        // a Meta kernel sized with sizes() specialises the trace: a note by design, tested in TraceTests
        .filter(x -> !dev.opcheck4j.testing.CorpusRun.ubiquitous(x))
        .map(CheckResult::check).collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void theWrongFunctionFailsExactlyItsMarkedCheck() throws Exception {
    var expected = NativeOps.expectations("value_ops.cpp");
    assertEquals(Set.of("value_ops::sine", "value_ops::rippled_sine"), expected.keySet());
    for (var e : expected.entrySet()) {
      assertEquals(e.getValue(), findings(report, e.getKey()), e.getKey());
    }
  }

  @Test
  void theKnownGoodOpsPassEverythingAndTheirReferencesRan() {
    for (String op : List.of("value_ops::scaled_sine", "value_ops::sin_", "value_ops::min_max")) {
      assertEquals(Set.of(), findings(report, op), op);
      assertTrue(report.results().stream().anyMatch(r -> r.op().equals(op) && r.check().equals(ReferenceValuesCheck.ID)
          && r.outcome() == Outcome.PASSED && r.example().startsWith("generated")), op + ": generated inputs compared");
    }
  }

  @Test
  void theFindingHasTheErrorsTheFirstDifferenceAndAMinimalExample() {
    CheckResult r = report.results().stream()
        .filter(x -> x.op().equals("value_ops::sine") && x.check().equals(ReferenceValuesCheck.ID)
            && x.outcome() == Outcome.FAILED)
        .findFirst().orElseThrow();
    assertTrue(r.example().startsWith("generated from"), "the examples agree (sin = cos at pi/4): " + r);
    assertTrue(r.finding().cause() instanceof Cause.ValueMismatch, r.toString());
    assertEquals("the values of the spec's reference: torch.sin(x)", r.fact("expected").orElseThrow());
    for (String key : List.of("max abs error", "max rel error", "differing", "first difference", "minimal example")) {
      assertTrue(r.fact(key).isPresent(), key + " in " + r);
    }
    String first = r.fact("first difference").orElseThrow();
    assertTrue(first.matches("\\[0(, 0)?\\]: \\S+ instead of \\S+"), first);
    assertTrue(r.fact("minimal example").orElseThrow().startsWith("x=float64[1, 1]"), r.toString());
  }

  @Test
  void withoutAReferenceTheSameWrongOpPassesAndTheCheckSaysWhyItSkipped(@TempDir Path dir) throws Exception {
    String text = Files.readString(NativeOps.spec(SPEC))
        .replace("\"../../../native-ops/target/lib/libvalue_ops.so\"", "\"" + NativeOps.lib("value_ops") + "\"")
        .replace("\"reference\": \"torch.sin(x)\",", "");
    Path spec = Files.writeString(dir.resolve("no_reference.json"), text);
    RunReport r = run(spec).report();
    assertEquals(Set.of(), findings(r, "value_ops::sine"), "without a reference cos passes for sin");
    List<CheckResult> skipped = r.results().stream()
        .filter(x -> x.op().equals("value_ops::sine") && x.check().equals(ReferenceValuesCheck.ID)).toList();
    assertTrue(!skipped.isEmpty());
    skipped.forEach(x -> assertEquals(Outcome.SKIPPED, x.outcome(), x.toString()));
    assertTrue(skipped.get(0).fact("reason").orElseThrow().contains("no \"reference\""), skipped.get(0).toString());
  }

  @Test
  void aReferenceThatDoesNotFitItsOpLeavesOutThatOpAloneAndIsAnInputError(@TempDir Path dir) throws Exception {
    Path spec = Files.writeString(dir.resolve("bad_reference.json"), "{\"library\": \"" + NativeOps.lib("value_ops") + "\",\n"
        + "\"ops\": [\n"
        + "  {\"op\": \"value_ops::sine\", \"reference\": \"torch.sin(y)\",\n"
        + "   \"examples\": [{\"args\": [{\"tensor\": [2]}]}]},\n"
        + "  {\"op\": \"value_ops::scaled_sine\", \"reference\": \"torch.sin(x) *\",\n"
        + "   \"examples\": [{\"args\": [{\"tensor\": [2]}, 1.0]}]},\n"
        + "  {\"op\": \"value_ops::min_max\", \"reference\": \"torch.clamp(x, max=0.0)\",\n"
        + "   \"examples\": [{\"args\": [{\"tensor\": [2]}]}]},\n"
        + "  {\"op\": \"value_ops::sin_\", \"reference\": \"def reference(x: Tensor, y: Tensor):\\n    return torch.sin(x)\",\n"
        + "   \"examples\": [{\"args\": [{\"tensor\": [2]}]}]},\n"
        + "  {\"op\": \"value_ops::rippled_sine\", \"reference\": \"torch.nn.functional.normalize(x)\",\n"
        + "   \"examples\": [{\"args\": [{\"tensor\": [2]}]}]}]}\n");
    List<String> text = Files.readAllLines(spec);
    RunOutcome outcome = Launcher.execute(RunRequest.builder().spec(spec).tries(0).jobs(1).build(), RunListener.NONE);
    // the run's input errors come sorted as text: file:11: before file:3:
    List<String> lines = new java.util.ArrayList<>(outcome.inputErrors());
    assertEquals(5, lines.size(), lines.toString());
    lines.add(lines.remove(0));
    assertEquals(at(spec, text, 3, "\"torch.sin(y)\"") + ": op 'value_ops::sine' \"reference\" names 'y', which is no argument of"
        + " value_ops::sine (its arguments: x)", lines.get(0));
    assertTrue(lines.get(1).startsWith(at(spec, text, 5, "\"torch.sin(x) *\"") + ": op 'value_ops::scaled_sine' \"reference\" does not compile as TorchScript: "), lines.get(1));
    assertEquals(at(spec, text, 7, "\"torch.clamp") + ": op 'value_ops::min_max' \"reference\" gives 1 value where value_ops::min_max returns 2"
        + " (value_ops::min_max(Tensor x) -> (Tensor, Tensor))", lines.get(2));
    assertTrue(lines.get(3).startsWith(at(spec, text, 9, "\"def ") + ": op 'value_ops::sin_' \"reference\" takes parameter 'y', which is no argument"), lines.get(3));
    assertTrue(lines.get(4).startsWith(at(spec, text, 11, "\"torch.nn") + ": op 'value_ops::rippled_sine' \"reference\" uses"
        + " torch.nn.functional.normalize, which is Python, not an aten op"), lines.get(4));
    // each of those ops is left out, and only it: one with a good reference beside them still runs
    assertEquals(Set.of(), outcome.report().results().stream().map(CheckResult::op).filter(op -> op.contains("::") && !op.endsWith("::*"))
        .collect(Collectors.toSet()), "every op here had a bad reference");
    Path mixed = Files.writeString(dir.resolve("mixed.json"), "{\"library\": \"" + NativeOps.lib("value_ops") + "\",\n"
        + "\"ops\": [\n"
        + "  {\"op\": \"value_ops::sine\", \"reference\": \"torch.sin(y)\", \"examples\": [{\"args\": [{\"tensor\": [2]}]}]},\n"
        + "  {\"op\": \"value_ops::scaled_sine\", \"reference\": \"torch.sin(x) * alpha\",\n"
        + "   \"examples\": [{\"args\": [{\"tensor\": [2]}, 1.0]}]}]}\n");
    RunOutcome some = Launcher.execute(RunRequest.builder().spec(mixed).tries(0).jobs(1).build(), RunListener.NONE);
    assertEquals(1, some.inputErrors().size(), some.inputErrors().toString());
    Set<String> ran = some.report().results().stream().map(CheckResult::op).filter(op -> op.contains("::") && !op.endsWith("::*")).collect(Collectors.toSet());
    assertEquals(Set.of("value_ops::scaled_sine"), ran);
    assertTrue(some.report().results().stream().anyMatch(x -> x.op().equals("value_ops::scaled_sine")
        && x.check().equals(ReferenceValuesCheck.ID) && x.outcome() == Outcome.PASSED));
  }

  @Test
  void torchNnFunctionalNamesThatAreAtenOpsCompile(@TempDir Path dir) throws Exception {
    // y = relu(y) - relu(-y), written as a user of torch.nn.functional writes it
    Path spec = Files.writeString(dir.resolve("functional.json"), "{\"library\": \"" + NativeOps.lib("value_ops") + "\",\n"
        + "\"ops\": [{\"op\": \"value_ops::scaled_sine\", \"reference\": \"torch.nn.functional.relu(torch.sin(x) * alpha)"
        + " - torch.nn.functional.relu(-torch.sin(x) * alpha) + 0 * torch.nn.functional.gelu(x, approximate='tanh')\",\n"
        + "   \"examples\": [{\"args\": [{\"tensor\": [3], \"dtype\": \"float64\"}, 1.5]}]}]}\n");
    // the examples only: gelu raises on integer tensors, which generated inputs would give the reference
    RunOutcome outcome = Launcher.execute(RunRequest.builder().tries(0).jobs(1).spec(spec).build(), RunListener.NONE);
    assertEquals(List.of(), outcome.inputErrors());
    List<CheckResult> values = outcome.report().results().stream().filter(x -> x.check().equals(ReferenceValuesCheck.ID)
        && x.outcome() != Outcome.SKIPPED).toList();
    assertTrue(!values.isEmpty());
    values.forEach(x -> assertEquals(Outcome.PASSED, x.outcome(), x.toString()));
  }

  /** {@code file:line:column} of {@code value} on line {@code line} of {@code text}. */
  private static String at(Path spec, List<String> text, int line, String value) {
    return spec + ":" + line + ":" + (text.get(line - 1).indexOf(value) + 1);
  }

  @Test
  void anExampleComparesWithTheTensorsPyTorchSavedForIt() throws Exception {
    RunReport r = run(NativeOps.spec("values/value_ops_expect.json")).report();
    CheckResult sine = r.results().stream()
        .filter(x -> x.op().equals("value_ops::sine") && x.check().equals(ReferenceValuesCheck.ID)
            && x.outcome() == Outcome.FAILED).findFirst().orElseThrow();
    assertEquals("value_ops_expect.json#ops[0].examples[0]", sine.example());
    assertEquals("the tensors of sine_x.pt (\"expect\", saved by torch.save)", sine.fact("expected").orElseThrow());
    assertEquals("[0]: 0.8775825618903728 instead of 0.479425538604203", sine.fact("first difference").orElseThrow());
    assertEquals(Set.of(ReferenceValuesCheck.ID), findings(r, "value_ops::sine"));
    assertEquals(Set.of(), findings(r, "value_ops::scaled_sine"));
    List<CheckResult> scaled = r.results().stream()
        .filter(x -> x.op().equals("value_ops::scaled_sine") && x.check().equals(ReferenceValuesCheck.ID)
            && x.device().equals("cpu")).toList();
    assertTrue(scaled.stream().anyMatch(x -> x.outcome() == Outcome.PASSED && !x.example().startsWith("generated")),
        scaled.toString());
    assertTrue(scaled.stream().anyMatch(x -> x.outcome() == Outcome.SKIPPED && x.example().startsWith("generated")
        && x.fact("reason").orElseThrow().startsWith("on every generated input (20): the spec gives no \"reference\" for this op:"
            + " only its examples with \"expect\" are compared")), scaled.toString());
  }

  @Test
  void anExpectFileThatIsMissingIsASpecErrorBeforeTheRunAndOneThatHoldsNoTensorItsOpsInputError(@TempDir Path dir)
      throws Exception {
    Path notATensor = NativeOps.repoRoot().resolve("fixtures/models/not_a_tensor.pt");
    Path spec = Files.writeString(dir.resolve("bad_expect.json"), "{\"library\": \"" + NativeOps.lib("value_ops") + "\",\n"
        + "\"ops\": [\n"
        + "  {\"op\": \"value_ops::sine\", \"examples\": [{\"args\": [{\"tensor\": [2]}], \"expect\": \"" + notATensor + "\"}]},\n"
        + "  {\"op\": \"value_ops::min_max\", \"examples\": [{\"args\": [{\"tensor\": [2]}], \"expect\": \""
        + NativeOps.repoRoot().resolve("fixtures/models/warp_x.pt") + "\"}]}]}\n");
    List<String> errors = Launcher.execute(RunRequest.builder().spec(spec).tries(0).jobs(1).build(), RunListener.NONE)
        .inputErrors();
    assertEquals(2, errors.size(), errors.toString());
    assertTrue(errors.get(0).matches(".*bad_expect\\.json:3:\\d+: op 'value_ops::sine' \"expect\" .*not_a_tensor\\.pt holds"
        + " GenericDict, not a tensor"), errors.get(0));
    assertTrue(errors.get(1).endsWith("warp_x.pt holds Tensor where the op gives 2 values: save a tuple of 2"), errors.get(1));
    Path missing = Files.writeString(dir.resolve("missing.json"), "{\"library\": \"" + NativeOps.lib("value_ops") + "\",\n"
        + "\"ops\": [{\"op\": \"value_ops::sine\", \"examples\": [{\"args\": [{\"tensor\": [2]}], \"expect\": \"no.pt\"}]}]}\n");
    SpecException m = assertThrows(SpecException.class,
        () -> Launcher.execute(RunRequest.builder().spec(missing).build(), RunListener.NONE));
    assertTrue(m.getMessage().contains("missing.json:2:") && m.getMessage().contains("\"expect\" file not found: "
        + dir.resolve("no.pt")), m.getMessage());
  }

  @Test
  void inProcessTheGoodOpsPassAndAnOpWithoutReferenceIsSkipped() throws Exception {
    assertPasses(ReferenceValuesCheck.ID, "value_ops", SPEC, "value_ops::scaled_sine");
    assertPasses(ReferenceValuesCheck.ID, "value_ops", SPEC, "value_ops::sin_");
    assertPasses(ReferenceValuesCheck.ID, "value_ops", SPEC, "value_ops::min_max");
    Verdict v = CheckTestHelper.evaluate(ReferenceValuesCheck.ID, "good_ops", "good_ops.json", "good_ops::add_scalar");
    assertEquals(Outcome.SKIPPED, v.outcome(), v.toString());
  }
}
