package dev.opcheck4j.run.property;

import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.spec.Example;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The generated inputs of one op on one device, in order: round-robin over the examples, each
 * example's edge cases first, then random ones from the run's seed. The same try is the same input
 * however often it is asked for.
 */
final class Tries {
  private final List<ExampleGenerator> generators;
  private final SplittableRandom seeds;
  private final List<Generated> made = new ArrayList<>();

  Tries(List<ExampleGenerator> generators, SplittableRandom seeds) {
    this.generators = new ArrayList<>(generators);
    this.seeds = seeds;
  }

  /** A generated input: its generator, the example, the choices it was made from, and how results name it. */
  record Generated(ExampleGenerator gen, Example example, List<Long> sequence, String label) {}

  /** The tries not made yet of the example {@code origin} draw tied sizes ({@link ExampleGenerator#tied}). */
  void tie(Example origin) {
    generators.replaceAll(g -> g.origin().equals(origin) ? g.tied() : g);
  }

  /** Tries {@code from} to {@code to} (exclusive). */
  List<Generated> range(int from, int to) {
    while (made.size() < to) {
      int n = made.size();
      ExampleGenerator gen = generators.get(n % generators.size());
      int round = n / generators.size();
      List<Map.Entry<String, List<Long>>> edges = List.copyOf(gen.edgeCases().entrySet());
      Choices choices = round < edges.size() ? Choices.replay(edges.get(round).getValue()) : Choices.random(seeds.nextLong());
      made.add(new Generated(gen, gen.generate(choices), choices.sequence(),
          "try " + n + (round < edges.size() ? " (edge case: " + edges.get(round).getKey() + ")" : "")));
    }
    return made.subList(from, to);
  }
}
