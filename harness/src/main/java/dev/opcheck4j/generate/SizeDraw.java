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

  SizeDraw(ExampleShapes shapes, SizeRelations relations) {
    this.shapes = shapes;
    this.relations = relations;
  }

  /**
   * The sizes {@code c} describes, untied or tied, keeping {@code kept}: each tensor's drawn shape, in the order
   * of {@link ExampleShapes#shapes}.
   */
  List<long[]> draw(Choices c, boolean untied, List<SizeRelation> kept) {
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
    return drawn;
  }

  /** The example's own shapes, in the order of {@link ExampleShapes#shapes}. */
  List<long[]> exampleShapes() {
    return shapes.shapes().stream().map(long[]::clone).toList();
  }

  /**
   * Sets the arguments of a variant ({@code out}, {@code kwargs}) that follow its drawn sizes: an int list
   * equal to a tensor's shape in the example follows that tensor's drawn shape, and an int a kept relation
   * gives is what the relation makes of the drawn sizes (in tied and untied tries). Any other int stays as
   * the example has it, equal to a size or not.
   */
  void follow(List<long[]> drawn, ExampleArgs args, List<SpecValue> out, Map<String, SpecValue> kwargs, Vary vary,
      List<SizeRelation> kept) {
    shapes.shapeArgs().forEach((name, tensor) -> {
      SpecValue old = args.get(out, kwargs, name);
      if (old != null && !vary.ranges().containsKey(name)) {
        List<SpecValue> vs = new ArrayList<>();
        for (long s : drawn.get(tensor)) {
          vs.add(new SpecValue(s, old.location()));
        }
        args.put(out, kwargs, name, new SpecValue(vs, old.location()));
      }
    });
    for (SizeRelation r : kept) {
      if (r.intTarget() != null) {
        SpecValue source = r.intSource() == null ? null : args.get(out, kwargs, r.intSource());
        long now = SizeRelations.intValue(r, drawn, source != null && source.isInteger() ? (Long) source.value() : 0);
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
   * Choices of a tied try whose every varying size {@code s} is {@code s + 2} (1 for a size 0, the most a
   * choice for it may be): other sizes than {@link #fresh}'s, which break every sum and offset too.
   */
  List<Long> freshAgain() {
    List<Long> out = new ArrayList<>(List.of(0L));
    shapes.sizes().forEach(s -> out.add(Math.min(s + 2, 2 * s + 1)));
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
