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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Coverage-guided tries (issue 54): after a try is kept, every other random try mutates one choice of a kept one. */
class TriesTests {
  private static ExampleGenerator generator() throws Exception {
    var schema = OpLibrary.load(NativeOps.lib("my_ops")).op("my_ops::mul_add").schema();
    SpecValue t = new SpecValue(Map.of("tensor", new SpecValue(List.of(new SpecValue(3L, "-"), new SpecValue(4L, "-")), "-")), "-");
    return new ExampleGenerator(schema, new Example("ex", List.of(t, t, new SpecValue(0.5, "-")), Map.of()), Vary.NONE);
  }

  @Test
  void aMutationReplaysEveryChoiceButOne() {
    List<Long> sequence = List.of(3L, 1L, 4L, 1L, 5L);
    Choices c = Choices.mutated(sequence, 2, 99L);
    List<Long> drawn = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      drawn.add(c.draw(1_000_000L));
    }
    assertEquals(List.of(3L, 1L), drawn.subList(0, 2));
    assertEquals(List.of(1L, 5L), drawn.subList(3, 5));
    assertTrue(drawn.get(2) != 4L, "the mutated choice is drawn anew: " + drawn);
  }

  @Test
  void afterAKeptTryEveryOtherRandomTryIsAMutationOfItAndWithoutOneNone() throws Exception {
    ExampleGenerator gen = generator();
    Tries plain = new Tries(List.of(gen), new SplittableRandom(7));
    assertTrue(plain.range(0, 30).stream().noneMatch(g -> g.label().contains("mutated")));
    Tries guided = new Tries(List.of(gen), new SplittableRandom(7));
    List<Tries.Generated> first = List.copyOf(guided.range(0, 5));
    guided.keep(first.get(4));
    List<Tries.Generated> later = guided.range(5, 25);
    long mutated = later.stream().filter(g -> g.label().contains("(mutated from " + first.get(4).label() + ")")).count();
    assertEquals(10, mutated, later.stream().map(Tries.Generated::label).toList().toString());
    for (Tries.Generated g : later) {
      if (g.label().contains("mutated")) {
        List<Long> from = first.get(4).sequence();
        int differ = 0;
        for (int i = 0; i < Math.min(from.size(), g.sequence().size()); i++) {
          differ += from.get(i).equals(g.sequence().get(i)) ? 0 : 1;
        }
        assertTrue(differ <= 1 || g.sequence().size() != from.size(), "one choice changed: " + from + " " + g.sequence());
      }
    }
  }
}
