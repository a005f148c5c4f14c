package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.OpLibrary;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What generation learns about sizes from the tries it is told about: no kernel, no worker. */
class TiedSizesTests {
  private ExampleGenerator gen;
  private Tries.Generated untied;
  private Tries.Generated tied;

  @BeforeEach
  void generator() throws Exception {
    var schema = OpLibrary.load(NativeOps.lib("my_ops")).op("my_ops::mul_add").schema();
    SpecValue t = new SpecValue(Map.of("tensor", new SpecValue(List.of(new SpecValue(3L, "-"), new SpecValue(4L, "-")), "-")), "-");
    gen = new ExampleGenerator(schema, new Example("spec.json#ops[0].examples[0]", List.of(t, t, new SpecValue(0.5, "-")),
        Map.of()), Vary.NONE);
    untied = made(gen.edgeCases().get("sizes untied"));
    tied = made(gen.edgeCases().get("sizes 1"));
    assertTrue(gen.drewUntied(untied.sequence()) && !gen.drewUntied(tied.sequence()));
  }

  private Tries.Generated made(List<Long> sequence) {
    Choices c = Choices.replay(sequence);
    return new Tries.Generated(gen, gen.generate(c), c.sequence(), "try");
  }

  @Test
  void untiedTriesAllRejectedWhileTiedOnesPassTieTheSizesFromTheNextTryOnAndSaySo() {
    TiedSizes sizes = new TiedSizes();
    sizes.saw(untied, "The size of tensor a (1) must match the size of tensor b (2)");
    sizes.saw(tied, null);
    assertEquals(List.of(), sizes.learned(20), "one untied rejection is not evidence enough");
    sizes.saw(untied, "The size of tensor a (3) must match the size of tensor b (4)");
    assertEquals(List.of(gen.origin()), sizes.learned(20));
    assertEquals(List.of("sizes that match: the kernel rejected 2 of 2 tries of spec.json#ops[0].examples[0] with untied"
        + " sizes (\"The size of tensor a (1) must match the size of tensor b (2)\") and 0 of 1 with tied ones, so its"
        + " tries from try 20 on draw tied sizes"), sizes.lines());
    assertEquals(List.of(), sizes.learned(40), "learned once");
  }

  @Test
  void aKernelThatRejectsTiedSizesAsOftenOrMostUntiedOnesAcceptedLearnsNothing() {
    TiedSizes asOften = new TiedSizes();
    for (int i = 0; i < 3; i++) {
      asOften.saw(untied, "x must be float32");
      asOften.saw(tied, "x must be float32");
    }
    asOften.saw(tied, null);
    assertEquals(List.of(), asOften.learned(20), "tied sizes are rejected as often: sizes are not the cause");
    TiedSizes broadcasting = new TiedSizes();
    for (int i = 0; i < 3; i++) {
      broadcasting.saw(untied, null);
      broadcasting.saw(tied, null);
    }
    broadcasting.saw(untied, "The size of tensor a (1) must match");
    broadcasting.saw(untied, "The size of tensor a (1) must match");
    assertEquals(List.of(), broadcasting.learned(20), "most untied tries were accepted");
    assertEquals(List.of(), broadcasting.lines());
  }
}
