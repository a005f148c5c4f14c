package dev.opcheck4j.run.property;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The classes of input the kernel accepted among an op's generated inputs on one device, and whether generation
 * still finds new ground (issue 55). A try's classes are its features, each a class of its own: which example it
 * varies; per tensor its dtype, rank, layout, and its sizes (empty, a single element, none above the example's,
 * or some above); whether its sizes were drawn tied (every size equal in the example equal in it) or untied; and
 * per non-tensor argument that differs from the example, its sign or value. An accepted try finds new ground when
 * it has a class no accepted try had before (or, where the library was built with coverage, when it reached new
 * kernel arcs: {@link #reachedNewArcs}). Generation stops once {@link #FLOOR} tries were made and the last {@link
 * #WINDOW} accepted tries found none: the run's tries are then a ceiling, not a quota. Classes, not their
 * combinations, are what must each be covered: a combination space grows as the product of the features and
 * would keep generation at its ceiling; a defect that needs two features at once is found by the tries before
 * the window closes, as before, or not. Pure: it is told each accepted try.
 */
final class InputClasses {
  /** Tries made before generation may stop, whatever it found. */
  static final int FLOOR = 30;
  /** Accepted tries in a row that found no new ground, after which generation stops. */
  static final int WINDOW = 20;

  private final Set<String> seen = new LinkedHashSet<>();
  private int quiet;

  /**
   * The generated input {@code e} of the example {@code origin} was accepted; {@code untied} says whether its
   * sizes were drawn untied, {@code shapes} and {@code originShapes} are its tensors' sizes and the example's by
   * label: true when it had a class no accepted try had.
   */
  boolean accepted(Example origin, Example e, boolean untied, Map<String, long[]> shapes,
      Map<String, long[]> originShapes) {
    boolean fresh = false;
    for (String f : features(origin, e, untied, shapes, originShapes)) {
      fresh |= seen.add(f);
    }
    quiet = fresh ? 0 : quiet + 1;
    return fresh;
  }

  /** The last accepted try reached kernel arcs no try had reached: it found new ground after all. */
  void reachedNewArcs() {
    quiet = 0;
  }

  /** Whether generation may stop after {@code tries} tries: at least {@link #FLOOR}, the last window quiet. */
  boolean saturated(int tries) {
    return tries >= FLOOR && quiet >= WINDOW;
  }

  /** How many more tries could end generation: what a batch need not go beyond. */
  int triesToStop(int tries) {
    return Math.max(FLOOR - tries, WINDOW - quiet);
  }

  /** How many classes the accepted tries had. */
  int classes() {
    return seen.size();
  }

  /** Why generation stopped when it {@link #saturated}, as shown. */
  String why() {
    return "no new input class in the last " + WINDOW + " accepted tries (" + seen.size()
        + " classes seen: dtypes, ranks, layouts, empty or not, sizes above the example's or not, tied or untied"
        + " sizes, non-tensor values); the tries are a ceiling (--all-tries runs them all)";
  }

  private static List<String> features(Example origin, Example e, boolean untied, Map<String, long[]> shapes,
      Map<String, long[]> originShapes) {
    List<String> out = new java.util.ArrayList<>();
    out.add("example " + origin.ref());
    out.add(origin.ref() + (untied ? " untied" : " tied"));
    shapes.forEach((label, s) -> out.add(origin.ref() + " " + label + " " + sizeClass(s, originShapes.get(label))));
    for (int i = 0; i < e.args().size() && i < origin.args().size(); i++) {
      add(out, origin.ref() + " #" + i, e.args().get(i), origin.args().get(i));
    }
    e.kwargs().forEach((k, v) -> add(out, origin.ref() + " " + k, v, origin.kwargs().get(k)));
    return out;
  }

  private static void add(List<String> out, String name, SpecValue v, SpecValue was) {
    if (v.isObject() && v.object().containsKey("tensor")) {
      SpecValue dtype = v.object().get("dtype");
      SpecValue layout = v.object().get("layout");
      out.add(name + " dtype " + (dtype != null && dtype.isString() ? dtype.value() : "float32"));
      out.add(name + " layout " + (layout != null && layout.isString() ? layout.value() : "contiguous"));
      out.add(name + " rank " + (v.object().get("tensor").isList() ? v.object().get("tensor").list().size() : "?"));
    } else if (v.isList()) {
      out.add(name + " length " + v.list().size());
      for (int j = 0; j < v.list().size(); j++) {
        add(out, name + "[" + j + "]", v.list().get(j), was != null && was.isList() && j < was.list().size()
            ? was.list().get(j) : null);
      }
    } else if (was != null && !java.util.Objects.equals(v.value(), was.value())) {
      Object x = v.value();
      out.add(name + " " + (x instanceof Number n ? Double.compare(n.doubleValue(), 0) < 0 ? "negative"
          : n.doubleValue() == 0 ? "zero" : "positive" : String.valueOf(x)));
    }
  }

  /** A tensor's sizes: empty, a single element, none above the example's, or some above. */
  private static String sizeClass(long[] s, long[] origin) {
    long n = 1;
    for (long d : s) {
      n *= d;
    }
    if (n == 0) {
      return "empty";
    }
    if (n == 1) {
      return "one element";
    }
    for (int d = 0; origin != null && d < s.length && d < origin.length; d++) {
      if (s[d] > origin[d]) {
        return "above the example";
      }
    }
    return "within the example";
  }
}
