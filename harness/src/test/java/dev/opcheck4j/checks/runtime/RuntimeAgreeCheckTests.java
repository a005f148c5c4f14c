package dev.opcheck4j.checks.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.ValueBaseline;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RuntimeAgreeCheckTests {
  private static ValueBaseline.Recorded gave(double... values) {
    List<Double> v = java.util.Arrays.stream(values).boxed().toList();
    return new ValueBaseline.Recorded("ns::op", "s.json#ops[0].examples[0]", 7, List.of(new ValueBaseline.Output("output 0",
        "float32", List.of((long) values.length), v, new ValueBaseline.Summary(0, 0, 0, 0, "-"))), null);
  }

  @Test
  void outputsThatDifferBeyondToleranceFailShowingBothRuntimesValues() {
    Verdict v = RuntimeAgreeCheck.agree("2.10.0", gave(1, 2, 3), "2.13.0", gave(1, 2.002, 3), Optional.empty());
    assertEquals(Outcome.FAILED, v.outcome());
    assertInstanceOf(Cause.ValueMismatch.class, v.finding().cause());
    assertEquals("the outputs it gave on libtorch 2.10.0, within tolerance", v.finding().expected());
    assertEquals("output 0 float32[3] [1.0, 2.0, 3.0]", v.finding().facts().stream()
        .filter(f -> f.key().equals("on 2.10.0")).findFirst().orElseThrow().value());
    assertEquals("output 0 float32[3] [1.0, 2.002, 3.0]", v.finding().facts().stream()
        .filter(f -> f.key().equals("on 2.13.0")).findFirst().orElseThrow().value());
  }

  @Test
  void theSameOutputsPassAndARaiseOnOneRuntimeFails() {
    assertEquals(Outcome.PASSED, RuntimeAgreeCheck.agree("2.10.0", gave(1, 2), "2.13.0", gave(1, 2), Optional.empty()).outcome());
    ValueBaseline.Recorded raised = new ValueBaseline.Recorded("ns::op", "s.json#ops[0].examples[0]", 7, List.of(), "boom");
    Verdict v = RuntimeAgreeCheck.agree("2.10.0", gave(1), "2.13.0", raised, Optional.empty());
    assertEquals(Outcome.FAILED, v.outcome());
    assertEquals(new Cause.Rejection("boom"), v.finding().cause());
    assertEquals(Outcome.SKIPPED, RuntimeAgreeCheck.agree("2.10.0", raised, "2.13.0", raised, Optional.empty()).outcome());
  }
}
