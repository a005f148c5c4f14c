package dev.opcheck4j.generate.example;

import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The sizes of an example's tensors, as generation varies them: the shape of each tensor whose values are not
 * given, its label, the distinct sizes a variant draws anew, the sizes that never change (those of tensors
 * with explicit {@code values}), and the int-list arguments equal to a tensor's shape. Pure.
 */
public final class ExampleShapes {
  private final List<long[]> shapes = new ArrayList<>();
  private final List<String> labels = new ArrayList<>();
  private final Map<String, Integer> ranks = new LinkedHashMap<>();
  private final TreeSet<Long> fixed = new TreeSet<>();
  private final List<Long> sizes;
  private final Map<String, Integer> shapeArgs = new LinkedHashMap<>();

  public ExampleShapes(ExampleArgs args) {
    TreeSet<Long> all = new TreeSet<>();
    List<String> names = args.names();
    List<SpecValue> values = args.values();
    for (int i = 0; i < values.size(); i++) {
      collect(values.get(i), names.get(i), all);
    }
    for (int i = 0; i < values.size(); i++) {
      SpecValue v = values.get(i);
      if (v.isList() && !v.list().isEmpty() && v.list().stream().allMatch(SpecValue::isInteger)) {
        long[] asShape = v.list().stream().mapToLong(x -> (Long) x.value()).toArray();
        for (int k = 0; k < shapes.size(); k++) {
          if (Arrays.equals(shapes.get(k), asShape)) {
            shapeArgs.put(names.get(i), k);
            break;
          }
        }
      }
    }
    all.removeAll(fixed);
    this.sizes = List.copyOf(all);
  }

  /** The example's shape of each tensor whose values are not given, in traversal order. */
  public List<long[]> shapes() {
    return shapes;
  }

  /** The labels ('x', 'xs[1]') of the tensors of {@link #shapes}, in the same order. */
  public List<String> labels() {
    return labels;
  }

  /** The label of every tensor, in traversal order, with its rank. */
  public Map<String, Integer> ranks() {
    return ranks;
  }

  /** Sizes of tensors with explicit values: they never change, in any tensor. */
  public Set<Long> fixed() {
    return fixed;
  }

  /** The distinct sizes a variant draws anew, smallest first. */
  public List<Long> sizes() {
    return sizes;
  }

  /** Int-list argument name to the index (in {@link #shapes}) of the tensor whose shape it equals. */
  public Map<String, Integer> shapeArgs() {
    return shapeArgs;
  }

  /**
   * The relations beyond equal sizes the example shows: between its sizes, and between them and its int
   * arguments that the spec gives no range (an int equal to a size is one of them, never tied unless the
   * kernel shows it must be).
   */
  public SizeRelations relations(ExampleArgs args, Vary vary) {
    Map<String, Long> targetInts = new LinkedHashMap<>();
    Map<String, Long> sourceInts = new LinkedHashMap<>();
    List<String> names = args.names();
    List<SpecValue> values = args.values();
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i).isInteger() && !names.get(i).isEmpty()) {
        long value = (Long) values.get(i).value();
        if (value >= 2 && !vary.ranges().containsKey(names.get(i))) {
          targetInts.put(names.get(i), value);
        }
        if (value >= 1) {
          sourceInts.put(names.get(i), value);
        }
      }
    }
    return new SizeRelations(shapes, labels, fixed, targetInts, sourceInts, vary.ranges().keySet());
  }

  private void collect(SpecValue v, String label, TreeSet<Long> all) {
    if (ExampleArgs.isTensor(v)) {
      boolean explicit = v.object().containsKey("values");
      List<SpecValue> dims = v.object().get("tensor").list();
      ranks.put(label, dims.size());
      long[] shape = new long[dims.size()];
      for (int d = 0; d < dims.size(); d++) {
        SpecValue s = dims.get(d);
        shape[d] = s.isInteger() ? (Long) s.value() : 0;
        if (s.isInteger()) {
          (explicit ? fixed : all).add((Long) s.value());
        }
      }
      if (!explicit) {
        shapes.add(shape);
        labels.add(label);
      }
    } else if (v.isList()) {
      for (int j = 0; j < v.list().size(); j++) {
        collect(v.list().get(j), label + "[" + j + "]", all);
      }
    }
  }
}
