package dev.opcheck4j.generate;

import dev.opcheck4j.generate.example.ExampleArgs;
import dev.opcheck4j.generate.example.ExampleShapes;
import dev.opcheck4j.generate.example.SizeRelation;
import dev.opcheck4j.generate.example.SizeRelations;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sizes of one variant: tied, each distinct size of the example drawn once in {@code 0..2×size+1} for
 * every dimension of that size; untied, every dimension on its own; then the relations the generator keeps.
 * The arguments that follow sizes are set from them: an int list equal to a tensor's shape, and the ints a
 * relation kept gives.
 */
final class SizeDraw {
  private final ExampleShapes shapes;
  private final SizeRelations relations;
  /** Int argument name to {size, offset} ({@link ExampleShapes#intTies}): tied tries keep it. */
  private final Map<String, long[]> intTies;

  SizeDraw(ExampleShapes shapes, SizeRelations relations, Map<String, long[]> intTies) {
    this.shapes = shapes;
    this.relations = relations;
    this.intTies = intTies;
  }

  /**
   * One variant's sizes.
   *
   * @param shapes each tensor's drawn shape, in the order of {@link ExampleShapes#shapes}
   * @param sizes tied: each example size to the size drawn for it; untied: empty
   * @param untied whether every dimension was drawn on its own
   */
  record Drawn(List<long[]> shapes, Map<Long, Long> sizes, boolean untied) {}

  /** The sizes {@code c} describes, untied or tied, keeping {@code kept}. */
  Drawn draw(Choices c, boolean untied, List<SizeRelation> kept) {
    Map<Long, Long> drawnSizes = new LinkedHashMap<>();
    List<long[]> drawn = new ArrayList<>();
    if (untied) {
      for (long[] shape : shapes.shapes()) {
        long[] s = new long[shape.length];
        for (int d = 0; d < shape.length; d++) {
          s[d] = shapes.fixed().contains(shape[d]) ? shape[d] : c.draw(2 * shape[d] + 1);
        }
        drawn.add(s);
      }
    } else {
      for (long s : shapes.sizes()) {
        drawnSizes.put(s, c.draw(2 * s + 1));
      }
      for (long[] shape : shapes.shapes()) {
        long[] s = new long[shape.length];
        for (int d = 0; d < shape.length; d++) {
          s[d] = drawnSizes.getOrDefault(shape[d], shape[d]);
        }
        drawn.add(s);
      }
    }
    relations.keepSizes(kept, drawn, drawnSizes);
    return new Drawn(drawn, drawnSizes, untied);
  }

  /**
   * Sets the arguments of a variant ({@code out}, {@code kwargs}) that follow its drawn sizes: an int list
   * equal to a tensor's shape in the example follows that tensor's drawn shape, a tied int its size, and an
   * int a kept relation gives is what the relation makes of the drawn sizes (in tied and untied tries).
   */
  void follow(Drawn sizes, ExampleArgs args, List<SpecValue> out, Map<String, SpecValue> kwargs, Vary vary,
      List<SizeRelation> kept) {
    shapes.shapeArgs().forEach((name, tensor) -> {
      SpecValue old = args.get(out, kwargs, name);
      if (old != null && !vary.ranges().containsKey(name)) {
        List<SpecValue> vs = new ArrayList<>();
        for (long s : sizes.shapes().get(tensor)) {
          vs.add(new SpecValue(s, old.location()));
        }
        args.put(out, kwargs, name, new SpecValue(vs, old.location()));
      }
    });
    if (!sizes.untied()) {
      // int arguments related to a size follow it (a length one longer than the input's)
      intTies.forEach((name, tie) -> {
        long now = sizes.sizes().getOrDefault(tie[0], tie[0]) + tie[1];
        SpecValue old = args.get(out, kwargs, name);
        if (old != null && now >= 0) {
          args.put(out, kwargs, name, new SpecValue(now, old.location()));
        }
      });
    }
    for (SizeRelation r : kept) {
      if (r.intTarget() != null) {
        SpecValue source = r.intSource() == null ? null : args.get(out, kwargs, r.intSource());
        long now = SizeRelations.intValue(r, sizes.shapes(), source != null && source.isInteger() ? (Long) source.value() : 0);
        SpecValue old = args.get(out, kwargs, r.intTarget());
        if (old != null) {
          args.put(out, kwargs, r.intTarget(), new SpecValue(now, old.location()));
        }
      }
    }
  }

  /** Choices of a tied try whose every varying size {@code s} is {@code 2s + 1}. */
  List<Long> fresh() {
    List<Long> out = new ArrayList<>(List.of(0L));
    shapes.sizes().forEach(s -> out.add(2 * s + 1));
    return out;
  }

  /**
   * The edge cases: every varying size 0, every varying size 1, and unless {@code tiedOnly} untied (dimension
   * d of every tensor has size d + 1), its first choice {@code untiedChoice}.
   */
  Map<String, List<Long>> edgeCases(boolean tiedOnly, long untiedChoice) {
    Map<String, List<Long>> out = new LinkedHashMap<>();
    out.put("sizes 0", List.of());
    List<Long> ones = new ArrayList<>(List.of(0L));
    shapes.sizes().forEach(s -> ones.add(1L));
    out.put("sizes 1", ones);
    if (tiedOnly) {
      return out;
    }
    List<Long> untied = new ArrayList<>(List.of(untiedChoice));
    for (long[] shape : shapes.shapes()) {
      for (int d = 0; d < shape.length; d++) {
        if (!shapes.fixed().contains(shape[d])) {
          untied.add((long) d + 1);
        }
      }
    }
    out.put("sizes untied", untied);
    return out;
  }
}
