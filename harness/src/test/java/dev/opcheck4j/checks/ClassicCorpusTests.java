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
 * says, and the good twins pass everything. That real PyTorch 2.13.0 says the same of the same source, contract by
 * contract, is PyTorchAgreementTests' to check (fixtures/specs/classic/classic_bad_ops.pytorch-2.13.0.jsonl); the
 * gradcheck check_undefined_grad runs by hand are in fixtures/specs/classic/real-opcheck.json.
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
