package dev.opcheck4j.checks.gradcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.spec.Domain;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.testing.CheckTestHelper;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.OpLibrary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every layout the generator draws goes through gradcheck's own code and comes out as a verdict about
 * the op, never a harness error (issue 28 §4): gradient_ops::raw_scale has a custom backward at the
 * Autograd key and a forward that reads x.data_ptr() as if x were contiguous, so gradcheck finds a
 * Jacobian mismatch exactly on the layouts whose memory order differs (transposed, strided,
 * channels_last) and none on contiguous and offset ones; its good twin gradient_ops::flows passes on
 * every layout. The harness's gradcheck perturbs inputs in their own layout, as PyTorch's does.
 */
class GradcheckLayoutsTests {
  private static final String RAW = "gradient_ops::raw_scale";
  private static final String FLOWS = "gradient_ops::flows";
  private static final Set<String> MISREAD = Set.of("transposed", "strided", "channels_last");
  private static final JsonNode REAL = read();

  private static JsonNode read() {
    try {
      return new ObjectMapper().readTree(NativeOps.spec("gradients/real-gradcheck.json").toFile());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static SpecValue tensor(List<Long> shape, String dtype, String layout) {
    List<SpecValue> dims = new ArrayList<>();
    shape.forEach(d -> dims.add(new SpecValue(d, "t")));
    Map<String, SpecValue> m = new LinkedHashMap<>();
    m.put("tensor", new SpecValue(dims, "t"));
    m.put("dtype", new SpecValue(dtype, "t"));
    m.put("layout", new SpecValue(layout, "t"));
    m.put("requires_grad", new SpecValue(true, "t"));
    return new SpecValue(m, "t");
  }

  private static OpSpec entry(String op, Example example) {
    return OpSpec.bare(op).synthesized(List.of(example), "");
  }

  private static Verdict gradcheck(String op, Example example) throws Exception {
    return CheckTestHelper.evaluate(JacobianCheck.ID, "gradient_ops", entry(op, example));
  }

  private static Example laid(List<Long> shape, String layout) {
    return new Example(layout, List.of(tensor(shape, "float32", layout)), Map.of());
  }

  /** The layouts the generator draws for raw_scale's 4-d example. */
  private static List<String> generatorLayouts() throws Exception {
    OpLibrary lib = OpLibrary.load(NativeOps.lib("gradient_ops"));
    Example origin = laid(List.of(2L, 3L, 3L, 2L), "contiguous");
    return new ExampleGenerator(lib.op(RAW).schema(), origin, Vary.NONE, Domain.ANY, Map.of(), Set.of())
        .layoutsForRank(4);
  }

  @Test
  void everyLayoutTheGeneratorDrawsIsAVerdictAboutTheOp() throws Exception {
    List<String> layouts = generatorLayouts();
    assertEquals(List.of("contiguous", "transposed", "strided", "offset", "channels_last"), layouts);
    for (String layout : layouts) {
      Verdict raw = gradcheck(RAW, laid(List.of(2L, 3L, 3L, 2L), layout));
      if (MISREAD.contains(layout)) {
        assertEquals(Outcome.FAILED, raw.outcome(), layout + ": " + raw.facts());
        assertInstanceOf(Cause.ValueMismatch.class, raw.finding().cause(), layout);
        assertTrue(raw.finding().actual().matches("d output 0\\[.*\\] / d x\\[.*\\]: analytical \\S+, numerical \\S+"),
            layout + ": " + raw.finding().actual());
      } else {
        assertEquals(Outcome.PASSED, raw.outcome(), layout + ": " + raw.facts());
      }
      Verdict flows = gradcheck(FLOWS, laid(List.of(2L, 3L, 3L, 2L), layout));
      assertEquals(Outcome.PASSED, flows.outcome(), layout + ": " + flows.facts());
      // what PyTorch 2.14.1's gradcheck said on the same op and layout (fixtures/specs/gradients)
      for (String op : List.of("raw_scale", "flows")) {
        String real = REAL.get("layouts").get(op + " " + layout).asText();
        Outcome mine = (op.equals("flows") ? flows : raw).outcome();
        assertEquals(real.equals("SUCCESS") ? Outcome.PASSED : Outcome.FAILED, mine, op + " " + layout + ": " + real);
      }
    }
  }

  @Test
  void theReportedFiveDimensionalTransposedInputIsAJacobianMismatch() throws Exception {
    // float32[2, 3, 4, 3, 3] strides [108, 36, 9, 1, 3]: the input that made the harness's own view() throw
    Verdict v = gradcheck(RAW, laid(List.of(2L, 3L, 4L, 3L, 3L), "transposed"));
    assertEquals(Outcome.FAILED, v.outcome(), v.facts().toString());
    assertTrue(REAL.get("layouts").get("raw_scale transposed 5-d").asText().startsWith("GradcheckError: Jacobian mismatch"));
    assertEquals("fast, then slow to locate the error", v.facts().stream().filter(f -> f.key().equals("mode"))
        .findFirst().orElseThrow().value());
  }

  @Test
  void everyExampleCheckRunsOnEveryLayoutWithoutAHarnessError() throws Exception {
    for (Check c : BuiltinChecks.all()) {
      if (!(c instanceof ExampleCheck)) {
        continue;
      }
      for (String op : List.of(RAW, FLOWS)) {
        for (String layout : generatorLayouts()) {
          OpSpec e = entry(op, laid(List.of(2L, 3L, 3L, 2L), layout));
          if (c.missingFrom(e).isPresent()) {
            continue;
          }
          Verdict v = CheckTestHelper.evaluate(c.id(), "gradient_ops", e);
          assertNotEquals(Outcome.ERRORED, v.outcome(), c.id() + " on " + op + " " + layout + ": " + v.facts());
        }
      }
    }
  }

  @Test
  void generatedInputsOfEachLayoutGetFindingsNeverErrors() throws Exception {
    OpLibrary lib = OpLibrary.load(NativeOps.lib("gradient_ops"));
    Example origin = laid(List.of(2L, 3L, 3L, 2L), "contiguous");
    ExampleGenerator gen = new ExampleGenerator(lib.op(RAW).schema(), origin, Vary.NONE, Domain.ANY, Map.of(),
        Set.of());
    Map<String, Example> found = new LinkedHashMap<>();
    for (long seed = 0; seed < 2000 && found.size() < 5; seed++) {
      Example e = gen.generate(Choices.random(seed));
      Map<String, SpecValue> x = e.args().get(0).object();
      String dtype = x.containsKey("dtype") ? String.valueOf(x.get("dtype").value()) : "float32";
      List<Long> dims = x.get("tensor").list().stream().map(d -> (Long) d.value()).toList();
      // every dim at least 2, so that each layout changes the memory order; small enough for slow mode
      boolean wide = dims.stream().allMatch(d -> d >= 2) && dims.stream().reduce(1L, (a, b) -> a * b) <= 200;
      if (wide && (dtype.equals("float32") || dtype.equals("float64"))) {
        found.putIfAbsent(x.containsKey("layout") ? String.valueOf(x.get("layout").value()) : "contiguous", e);
      }
    }
    assertEquals(Set.of("contiguous", "transposed", "strided", "offset", "channels_last"), found.keySet());
    for (Map.Entry<String, Example> e : found.entrySet()) {
      // slow mode: fast mode's random projections can miss a permuted Jacobian on a large input (as
      // PyTorch's fast_mode can); every entry is compared here
      OpSpec slow = new OpSpec(RAW, List.of(), Map.of(), Optional.empty(), List.of(e.getValue()), RAW,
          OpSpec.Gradcheck.DEFAULT.slow(), Vary.NONE);
      Verdict v = CheckTestHelper.evaluate(JacobianCheck.ID, "gradient_ops", slow);
      assertEquals(MISREAD.contains(e.getKey()) ? Outcome.FAILED : Outcome.PASSED, v.outcome(),
          e.getKey() + " " + e.getValue() + ": " + v.facts());
    }
  }

  @Test
  void theRunFindsTheMismatchOnAGeneratedLayoutAndErrorsNowhere(@TempDir Path dir) throws Exception {
    // raw_scale's contiguous example alone (the spec's transposed one fails gradcheck before any try)
    Path spec = dir.resolve("raw_scale.json");
    Files.writeString(spec, "{\"library\": \"" + NativeOps.lib("gradient_ops") + "\", \"ops\": [{\"op\": \"" + RAW
        + "\", \"examples\": [{\"args\": [{\"tensor\": [2, 3, 3, 2], \"requires_grad\": true}]}]}]}");
    List<CheckResult> results = Launcher.execute(RunRequest.builder().seed(7L).tries(100).jobs(1)
        .spec(spec).checks(List.of("gradcheck")).build(), RunListener.NONE).report().results();
    assertEquals(List.of(), results.stream().filter(r -> r.outcome() == Outcome.ERRORED).toList());
    CheckResult generated = results.stream().filter(r -> r.check().equals(JacobianCheck.ID)
        && r.example().startsWith("generated")).findFirst().orElseThrow();
    assertEquals(Outcome.FAILED, generated.outcome(), generated.toString());
    String example = generated.fact("example").orElseThrow();
    assertTrue(example.contains(" strides ") && example.contains("requires_grad"), example);
  }
}
