package dev.opcheck4j.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.gradcheck.UndefinedGradCheck;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.CorpusRun;
import dev.opcheck4j.testing.NativeOps;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Classic TORCH_LIBRARY code (native-ops' classic_bad_ops.cpp, torch::autograd::Function included, built with the
 * runtime's own headers): each opcheck-equivalent family fails on it exactly where its {@code // EXPECT:} marker
 * says, the good twins pass everything, and real PyTorch 2.13.0 said the same of the same source
 * (fixtures/specs/classic/real-opcheck.json).
 */
class ClassicCorpusTests {
  private static final String SPEC = "classic/classic_bad_ops.json";
  private static CorpusRun corpus;

  @BeforeAll
  static void run() throws Exception {
    corpus = CorpusRun.of(SPEC, CorpusTests.TRIES);
  }

  private static List<String> ops() throws Exception {
    return SpecReader.read(NativeOps.spec(SPEC)).ops().stream().map(o -> o.op()).toList();
  }

  @TestFactory
  Stream<DynamicTest> eachOpHasFindingsInExactlyItsMarkedChecks() throws Exception {
    assertEquals(new TreeSet<>(ops()), new TreeSet<>(NativeOps.opsIn("classic_bad_ops.cpp")), "the spec covers every op");
    return corpus.eachOpHasFindingsInExactlyItsMarkedChecks("classic_bad_ops.cpp", ops());
  }

  @Test
  void everyOpenFamilyHasItsClassicBadOp() throws Exception {
    assertEquals(Set.of("mutation.undeclared", "fake.metadata", "autograd.registration", "gradcheck.jacobian",
            UndefinedGradCheck.ID),
        NativeOps.expectations("classic_bad_ops.cpp").values().stream().flatMap(Set::stream)
            .collect(java.util.stream.Collectors.toSet()));
  }

  /**
   * The test of real opcheck (or gradcheck) that stands for each check a marker names: where opcheck4j fails
   * the check, real PyTorch fails that test; a good twin passes every test and gradcheck.
   */
  private static final Map<String, String> REAL = Map.of(
      "mutation.undeclared", "test_schema",
      "fake.metadata", "test_faketensor",
      "autograd.registration", "test_autograd_registration",
      "gradcheck.jacobian", "gradcheck",
      UndefinedGradCheck.ID, "gradcheck");

  @Test
  void realPyTorchFailsTheSameFamilyOnTheSameSource() throws Exception {
    JsonNode real = new ObjectMapper().readTree(NativeOps.spec("classic/real-opcheck.json").toFile()).get("ops");
    Map<String, Set<String>> marked = NativeOps.expectations("classic_bad_ops.cpp");
    for (String op : ops()) {
      JsonNode said = real.get(op).get("real opcheck").get(0);
      Set<String> failedThere = new TreeSet<>();
      said.fields().forEachRemaining(e -> {
        if (!e.getValue().asText().equals("SUCCESS")) {
          failedThere.add(e.getKey());
        }
      });
      Set<String> want = marked.getOrDefault(op, Set.of());
      if (want.isEmpty()) {
        assertEquals(Set.of(), failedThere, op + " is a good twin: real PyTorch passed it: " + said);
        continue;
      }
      for (String check : want) {
        assertTrue(failedThere.contains(REAL.get(check)), op + ": real PyTorch must fail " + REAL.get(check) + ": " + said);
      }
    }
    // the mutation, fake and gradient ops fail nothing else there; the Function registered at CPU also fails
    // test_faketensor (requires_grad-ness) and test_aot_dispatch_dynamic, both on that same backend-key autograd
    assertEquals("RuntimeError: Argument x is not defined as mutable but was mutated",
        real.get("classic_bad_ops::writes_input").get("real opcheck").get(0).get("test_schema").asText());
    assertTrue(real.get("classic_bad_ops::square_wrong_grad").get("real opcheck").get(0).get("gradcheck").asText()
        .startsWith("GradcheckError: Jacobian mismatch for output 0 with respect to input 0"));
    assertTrue(real.get("classic_bad_ops::function_at_cpu").get("real opcheck").get(0).get("test_faketensor").asText()
        .contains("mismatched requires_grad-ness of outputs"));
  }

  @Test
  void aBackwardThatCannotTakeEveryGradOutputUndefinedFailsOnlyThereAsInGradcheck() throws Exception {
    CheckResult bad = corpus.one("classic_bad_ops::pair_all_undefined", UndefinedGradCheck.ID, "cpu");
    assertEquals(Outcome.FAILED, bad.outcome(), bad.toString());
    assertEquals("backward runs with every grad_output undefined at once", bad.finding().expected());
    assertEquals("backward raised: tensor does not have a device", bad.finding().actual());
    assertEquals(Outcome.PASSED, corpus.one("classic_bad_ops::pair_all_undefined", "gradcheck.jacobian", "cpu").outcome());
    CheckResult good = corpus.one("classic_bad_ops::pair", UndefinedGradCheck.ID, "cpu");
    assertEquals(Outcome.PASSED, good.outcome(), good.toString());
    assertEquals("2 require grad; every grad_output undefined at once, then each in turn given an undefined grad_output,"
        + " the others zero", good.fact("outputs").orElseThrow());
    assertTrue(good.fact("note").isEmpty(), good.toString());
    // real PyTorch 2.13.0: gradcheck fails in check_undefined_grad with the same error from the backward, and
    // passes without it; one output undefined at a time, the backward is right there too
    JsonNode real = new ObjectMapper().readTree(NativeOps.spec("classic/real-opcheck.json").toFile()).get("ops");
    JsonNode badThere = real.get("classic_bad_ops::pair_all_undefined").get("real check_undefined_grad");
    assertTrue(badThere.get("gradcheck").asText().startsWith("GradcheckError: Expected backward function to handle undefined"
        + " output grads"), badThere.toString());
    assertEquals("SUCCESS: True", badThere.get("gradcheck check_undefined_grad=False").asText());
    assertEquals("RuntimeError: tensor does not have a device", badThere.get("every grad_output undefined").asText());
    assertEquals("SUCCESS: max |grad| 0.0", badThere.get("output 0 undefined, the other zero").asText());
    JsonNode goodThere = real.get("classic_bad_ops::pair").get("real check_undefined_grad");
    assertEquals("SUCCESS: True", goodThere.get("gradcheck").asText());
  }
}
