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
 * example's edge cases first, then random ones from the run's seed; once a try is kept for reaching new kernel
 * arcs ({@link #keep}), every other random one is a mutation of a kept try. The same try is the same input
 * however often it is asked for.
 */
final class Tries {
  /** Draws in a row steered away from crash classes before one is taken anyway (the death budget then decides). */
  static final int STEER_AT_MOST = 200;
  private final List<ExampleGenerator> generators;
  private final SplittableRandom seeds;
  private final List<Generated> made = new ArrayList<>();
  /** The draw each try of {@code made} was made by. */
  private final List<Integer> drawOf = new ArrayList<>();
  private CrashClasses avoided;
  private int drawn;
  /** Tries that reached kernel arcs no try had (a library built with coverage): later tries mutate from them. */
  private final List<Generated> kept = new ArrayList<>();

  Tries(List<ExampleGenerator> generators, SplittableRandom seeds) {
    this.generators = new ArrayList<>(generators);
    this.seeds = seeds;
  }

  /**
   * From try {@code from} on, inputs in a class of {@code classes} are steered away from: drawn again
   * (the tries from {@code from} already made are dropped and made anew).
   */
  void avoid(CrashClasses classes, int from) {
    avoided = classes;
    if (made.size() > from) {
      // drawn again from the first dropped try's draw, so that no edge case it or a later try held is lost
      drawn = drawOf.get(from);
      made.subList(from, made.size()).clear();
      drawOf.subList(from, drawOf.size()).clear();
    }
  }

  /**
   * A generated input: its generator, the example, the choices it was made from, how results name it, and whether
   * it is one of its example's size edge cases (sizes 0, sizes 1, sizes untied), which every budgeted check runs on.
   */
  record Generated(ExampleGenerator gen, Example example, List<Long> sequence, String label, boolean edge) {
    Generated(ExampleGenerator gen, Example example, List<Long> sequence, String label) {
      this(gen, example, sequence, label, false);
    }
  }

  /**
   * {@code g} reached new kernel arcs: from now on every other random try is a mutation of one such try (one of its
   * choices drawn anew: a size, a dtype, a layout or its values), so generation explores around what reached new
   * code (issue 54).
   */
  void keep(Generated g) {
    kept.add(g);
  }

  /** The tries not made yet of the example {@code origin} draw tied sizes ({@link ExampleGenerator#tied}). */
  void tie(Example origin) {
    generators.replaceAll(g -> g.origin().equals(origin) ? g.tied() : g);
  }

  /** Whether try {@code t} is one of its example's size edge cases (made now if it was not yet). */
  boolean edge(int t) {
    return range(t, t + 1).get(0).edge();
  }

  /**
   * The tries of a batch from {@code from}, at most {@code size}. Once a budgeted check's share is done ({@code
   * pastShare}), a size edge case, which every check runs on (sizes 0, 1, untied: where kernels read and write out
   * of bounds, and an op of many examples has more of them than a costly check's tenth of the tries), is a batch of
   * its own, and a batch of other tries ends before the next one.
   */
  List<Generated> batch(int from, int size, boolean pastShare) {
    List<Generated> batch = range(from, from + size);
    if (!pastShare || batch.get(0).edge()) {
      return pastShare ? batch.subList(0, 1) : batch;
    }
    int end = 1;
    while (end < batch.size() && !batch.get(end).edge()) {
      end++;
    }
    return batch.subList(0, end);
  }

  /** Tries {@code from} to {@code to} (exclusive). */
  List<Generated> range(int from, int to) {
    int steered = 0;
    while (made.size() < to) {
      // the draws, not the tries, go round the examples: a draw steered away is not a try
      int n = drawn++;
      ExampleGenerator gen = generators.get(n % generators.size());
      int round = n / generators.size();
      List<Map.Entry<String, List<Long>>> edges = List.copyOf(gen.edgeCases().entrySet());
      Generated parent = round >= edges.size() && !kept.isEmpty() && n % 2 == 1 ? kept.get(seeds.nextInt(kept.size())) : null;
      if (parent != null) {
        Example origin = parent.gen().origin();
        gen = generators.stream().filter(g -> g.origin().equals(origin)).findFirst().orElse(parent.gen());
      }
      Choices choices = parent != null ? Choices.mutated(parent.sequence(), seeds.nextInt(Math.max(1, parent.sequence().size())),
          seeds.nextLong()) : round < edges.size() ? Choices.replay(edges.get(round).getValue()) : Choices.random(seeds.nextLong());
      Example e = gen.generate(choices);
      if (avoided != null && steered < STEER_AT_MOST && avoided.steersAway(e)) {
        steered++;
        continue;
      }
      steered = 0;
      drawOf.add(n);
      boolean edge = parent == null && round < edges.size();
      made.add(new Generated(gen, e, choices.sequence(),
          "try " + made.size() + (parent != null ? " (mutated from " + parent.label() + ")"
              : edge ? " (edge case: " + edges.get(round).getKey() + ")" : ""), edge));
    }
    return made.subList(from, to);
  }
}
