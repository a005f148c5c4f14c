package dev.opcheck4j.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.SchemaText;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Gradients by default: what a synthesized example and its generated variants ask of autograd. */
class ExampleSynthesizerTests {
  private static boolean requiresGrad(SpecValue tensor) {
    SpecValue rg = tensor.object().get("requires_grad");
    return rg != null && Boolean.TRUE.equals(rg.value());
  }

  @Test
  void anOpThatCarriesGradientsGetsFloatingInputsThatRequireGradExceptWrittenOnes() {
    OpSchema schema = SchemaText.parse("t::square_out(Tensor x, *, Tensor(a!) out) -> ()");
    Example e = new ExampleSynthesizer(schema, "t::square_out synthesized", true).candidate(0, 7);
    assertTrue(requiresGrad(e.args().get(0)), e.toString());
    assertFalse(requiresGrad(e.kwargs().get("out")), "autograd refuses an in-place write into a leaf: " + e);
  }

  @Test
  void tensorListElementsRequireGradToo() {
    OpSchema schema = SchemaText.parse("t::stack_sum(Tensor[] xs) -> Tensor");
    Example e = new ExampleSynthesizer(schema, "t::stack_sum synthesized", true).candidate(0, 7);
    assertFalse(e.args().get(0).list().isEmpty());
    e.args().get(0).list().forEach(t -> assertTrue(requiresGrad(t), e.toString()));
  }

  @Test
  void theSimplestCandidateGivesARangeTwoDifferentBounds() {
    OpSchema schema = SchemaText.parse("t::clamp_(Tensor(a!) x, float lo, float hi) -> ()");
    Example e = new ExampleSynthesizer(schema, "t::clamp_ synthesized", false).candidate(0, 7);
    assertEquals(List.of(0.5, 1.0), List.of(e.args().get(1).value(), e.args().get(2).value()), e.toString());
  }

  @Test
  void anOpWithBackendKernelsOnlyIsNotAskedForGradients() {
    OpSchema schema = SchemaText.parse("t::scale(Tensor x, float alpha) -> Tensor");
    ExampleSynthesizer synth = new ExampleSynthesizer(schema, "t::scale synthesized", false);
    for (int k = 0; k < 80; k++) {
      assertFalse(requiresGrad(synth.candidate(k, 7).args().get(0)), "candidate " + k);
    }
  }

  @Test
  void onlyFloatingPointTensorsRequireGrad() {
    OpSchema schema = SchemaText.parse("t::scale(Tensor x, float alpha) -> Tensor");
    ExampleSynthesizer synth = new ExampleSynthesizer(schema, "t::scale synthesized", true);
    int floating = 0;
    int other = 0;
    for (int k = ExampleSynthesizer.GRID; k < ExampleSynthesizer.GRID + 60; k++) {
      SpecValue x = synth.candidate(k, 7).args().get(0);
      boolean isFloat = GradientInputs.floating(dev.opcheck4j.generate.example.ExampleArgs.dtypeOf(x.object()));
      assertEquals(isFloat, requiresGrad(x), x.toString());
      floating += isFloat ? 1 : 0;
      other += isFloat ? 0 : 1;
    }
    assertTrue(floating > 0 && other > 0, "the random candidates draw both kinds: " + floating + "/" + other);
  }

  @Test
  void generatedInputsKeepRequiresGradWhileTheirDtypeIsFloating() {
    OpSchema schema = SchemaText.parse("t::scale(Tensor x, float alpha) -> Tensor");
    Example origin = new ExampleSynthesizer(schema, "t::scale synthesized", true).candidate(0, 7);
    ExampleGenerator gen = new ExampleGenerator(schema, origin, new Vary(java.util.Map.of(), List.of("float64", "int64"), false));
    int kept = 0;
    int dropped = 0;
    for (long seed = 0; seed < 60; seed++) {
      SpecValue x = gen.generate(Choices.random(seed)).args().get(0);
      boolean isFloat = GradientInputs.floating(dev.opcheck4j.generate.example.ExampleArgs.dtypeOf(x.object()));
      assertEquals(isFloat, requiresGrad(x), x.toString());
      kept += isFloat ? 1 : 0;
      dropped += isFloat ? 0 : 1;
    }
    assertTrue(kept > 0 && dropped > 0, kept + "/" + dropped);
  }
}
