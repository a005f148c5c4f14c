package dev.opcheck4j.generate.example;

import dev.opcheck4j.generate.example.SizeRelation.Dim;
import dev.opcheck4j.generate.example.SizeRelation.Kind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The relations between an example's sizes that are more than equal sizes ({@link SizeRelation}), and
 * how a try keeps them. Pure: it reads the example's shapes and int arguments.
 */
public final class SizeRelations {
  private final List<long[]> shapes;
  private final List<String> labels;
  private final Set<Long> fixed;
  /** Int arguments that may be a relation's target: 2 or more in the example, and not ranged. */
  private final Map<String, Long> targetInts;
  /** Int arguments that may be added to a size: 1 or more in the example; ranged ones only for an int target. */
  private final Map<String, Long> sourceInts;
  private final Set<String> ranged;

  SizeRelations(List<long[]> shapes, List<String> labels, Set<Long> fixed, Map<String, Long> targetInts,
      Map<String, Long> sourceInts, Set<String> ranged) {
    this.shapes = shapes;
    this.labels = labels;
    this.fixed = fixed;
    this.targetInts = targetInts;
    this.sourceInts = sourceInts;
    this.ranged = ranged;
  }

  /**
   * Every relation the example shows, most telling first: sums of two dimensions (a size, then an int
   * argument), a dimension plus an int argument, an int argument equal to a size of 2 or more or one off
   * it (equal first), then a dimension plus a constant (smallest first). A size's relations need a dimension
   * of it in another argument than the sources'; sizes 0 say nothing. Every one is only a candidate: most
   * are chance (norm = 2 beside a batch of 2), and the kernel's rejections decide ({@code SizeProbing}).
   */
  public List<SizeRelation> candidates() {
    List<Dim> dims = new ArrayList<>();
    for (int t = 0; t < shapes.size(); t++) {
      for (int d = 0; d < shapes.get(t).length; d++) {
        dims.add(new Dim(t, d));
      }
    }
    Set<Long> targets = new LinkedHashSet<>();
    dims.forEach(p -> targets.add(value(p)));
    targets.removeIf(c -> c < 2 || fixed.contains(c));
    List<SizeRelation> sums = new ArrayList<>();
    List<SizeRelation> intSums = new ArrayList<>();
    List<SizeRelation> intOffsets = new ArrayList<>();
    List<SizeRelation> offsets = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < dims.size(); i++) {
      Dim p = dims.get(i);
      if (value(p) < 1) {
        continue;
      }
      for (int j = i + 1; j < dims.size(); j++) {
        Dim q = dims.get(j);
        long sum = value(p) + value(q);
        if (value(q) < 1) {
          continue;
        }
        Dim at = targetDim(sum, new HashSet<>(List.of(arg(p), arg(q))));
        if (at != null && seen.add("sum " + sum + " " + Math.min(value(p), value(q)))) {
          sums.add(new SizeRelation(Kind.SUM, sum, null, List.of(p, q), null, 0,
              name(at) + " = " + name(p) + " + " + name(q)));
        }
        targetInts.forEach((n, v) -> {
          if (v == sum && seen.add("int sum " + n)) {
            intSums.add(new SizeRelation(Kind.SUM, 0, n, List.of(p, q), null, 0, n + " = " + name(p) + " + " + name(q)));
          }
        });
      }
      sourceInts.forEach((s, q) -> {
        Dim at = ranged.contains(s) ? null : targetDim(value(p) + q, Set.of(arg(p)));
        if (at != null && seen.add("offset " + (value(p) + q) + " " + value(p))) {
          intOffsets.add(new SizeRelation(Kind.INT_OFFSET, value(p) + q, null, List.of(p), s, 0,
              name(at) + " = " + name(p) + " + " + s));
        }
        targetInts.forEach((n, v) -> {
          if (!n.equals(s) && v == value(p) + q && seen.add("int offset " + n)) {
            intOffsets.add(new SizeRelation(Kind.INT_OFFSET, 0, n, List.of(p), s, 0, n + " = " + name(p) + " + " + s));
          }
        });
      });
      for (long c : targets) {
        Dim at = c > value(p) ? targetDim(c, Set.of(arg(p))) : null;
        if (at != null && seen.add("offset " + c + " " + value(p))) {
          offsets.add(new SizeRelation(Kind.OFFSET, c, null, List.of(p), null, c - value(p),
              name(at) + " = " + name(p) + " + " + (c - value(p))));
        }
      }
    }
    offsets.sort(Comparator.comparingLong(SizeRelation::k));
    List<SizeRelation> out = new ArrayList<>(sums);
    out.addAll(intSums);
    out.addAll(intOffsets);
    out.addAll(intConstants(dims, seen));
    out.addAll(offsets);
    return out;
  }

  /** Int arguments equal to a varying size of 2 or more, then one more than one, then one less: {@code n = x.size(0) + 1}. */
  private List<SizeRelation> intConstants(List<Dim> dims, Set<String> seen) {
    List<SizeRelation> out = new ArrayList<>();
    for (long k : new long[] {0, 1, -1}) {
      targetInts.forEach((n, v) -> {
        for (Dim p : dims) {
          if (value(p) >= 2 && !fixed.contains(value(p)) && v == value(p) + k && seen.add("int constant " + n)) {
            out.add(new SizeRelation(Kind.OFFSET, 0, n, List.of(p), null, k,
                n + " = " + name(p) + (k == 0 ? "" : k > 0 ? " + " + k : " - " + -k)));
          }
        }
      });
    }
    return out;
  }

  /**
   * The relations of {@code candidates} that can all be kept at once, in that order of preference: one
   * per target, and no target that depends on itself through the others.
   */
  public List<SizeRelation> consistent(List<SizeRelation> candidates) {
    Map<String, SizeRelation> byTarget = new LinkedHashMap<>();
    for (SizeRelation r : candidates) {
      String key = targetKey(r);
      if (!byTarget.containsKey(key) && sourceKeys(r).stream().noneMatch(s -> dependsOn(s, key, byTarget))) {
        byTarget.put(key, r);
      }
    }
    return ordered(List.copyOf(byTarget.values()));
  }

  /** {@code relations} in an order where each comes after those its sources follow. */
  public List<SizeRelation> ordered(List<SizeRelation> relations) {
    Map<String, SizeRelation> byTarget = new LinkedHashMap<>();
    relations.forEach(r -> byTarget.put(targetKey(r), r));
    List<SizeRelation> out = new ArrayList<>();
    Set<String> done = new HashSet<>();
    for (int before = -1; out.size() < relations.size() && before < out.size(); ) {
      before = out.size();
      for (SizeRelation r : relations) {
        if (!done.contains(targetKey(r))
            && sourceKeys(r).stream().allMatch(s -> !byTarget.containsKey(s) || done.contains(s))) {
          done.add(targetKey(r));
          out.add(r);
        }
      }
    }
    return out;
  }

  /**
   * Makes the drawn sizes keep the size relations (in order): every dimension of the target's size in the
   * example gets the sum its sources were drawn; {@code drawnSizes} (example size to drawn one) too.
   */
  public void keepSizes(List<SizeRelation> relations, List<long[]> drawn, Map<Long, Long> drawnSizes) {
    for (SizeRelation r : relations) {
      if (r.intTarget() != null) {
        continue;
      }
      long now = sum(r, drawn, r.intSource() == null ? 0 : sourceInts.get(r.intSource()));
      for (int t = 0; t < shapes.size(); t++) {
        for (int d = 0; d < shapes.get(t).length; d++) {
          if (shapes.get(t)[d] == r.target()) {
            drawn.get(t)[d] = now;
          }
        }
      }
      drawnSizes.put(r.target(), now);
    }
  }

  /** The value a relation with an int target gives that int, from the drawn sizes and {@code intSource}'s value. */
  public static long intValue(SizeRelation r, List<long[]> drawn, long intSource) {
    return sum(r, drawn, intSource);
  }

  private static long sum(SizeRelation r, List<long[]> drawn, long intSource) {
    long now = r.k() + (r.intSource() == null ? 0 : intSource);
    for (Dim p : r.sources()) {
      now += drawn.get(p.tensor())[p.dim()];
    }
    return Math.max(now, 0);
  }

  private long value(Dim p) {
    return shapes.get(p.tensor())[p.dim()];
  }

  private String arg(Dim p) {
    String label = labels.get(p.tensor());
    int bracket = label.indexOf('[');
    return bracket < 0 ? label : label.substring(0, bracket);
  }

  private String name(Dim p) {
    return labels.get(p.tensor()) + ".size(" + p.dim() + ")";
  }

  /** The first dimension of size {@code c} in an argument other than {@code sourceArgs}; null if none or fixed. */
  private Dim targetDim(long c, Set<String> sourceArgs) {
    if (c < 2 || fixed.contains(c)) {
      return null;
    }
    for (int t = 0; t < shapes.size(); t++) {
      for (int d = 0; d < shapes.get(t).length; d++) {
        Dim p = new Dim(t, d);
        if (value(p) == c && !sourceArgs.contains(arg(p))) {
          return p;
        }
      }
    }
    return null;
  }

  private static String targetKey(SizeRelation r) {
    return r.intTarget() != null ? "int " + r.intTarget() : "size " + r.target();
  }

  private List<String> sourceKeys(SizeRelation r) {
    List<String> out = new ArrayList<>();
    r.sources().forEach(p -> out.add("size " + value(p)));
    if (r.intSource() != null) {
      out.add("int " + r.intSource());
    }
    return out;
  }

  /** Whether {@code key} is {@code target} or follows it through the relations of {@code byTarget}. */
  private boolean dependsOn(String key, String target, Map<String, SizeRelation> byTarget) {
    if (key.equals(target)) {
      return true;
    }
    SizeRelation r = byTarget.get(key);
    return r != null && sourceKeys(r).stream().anyMatch(s -> dependsOn(s, target, byTarget));
  }
}
