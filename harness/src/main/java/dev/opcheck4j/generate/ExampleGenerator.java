package dev.opcheck4j.generate;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * Generates variants of one example, every value drawn from {@link Choices} so that variants
 * replay and shrink. What varies:
 *
 * <ul>
 *   <li>sizes: each distinct size of the example's tensors maps to one drawn size in {@code
 *       0..2×size+1}, so dimensions equal across arguments stay equal (broadcasting and matching
 *       shapes hold); ranks never change; tensors with explicit {@code values} keep their shape, and
 *       their sizes stay fixed everywhere;
 *   <li>layout: contiguous, transposed (2-d and up), strided, offset, channels_last (4-d);
 *   <li>dtype: within the example's floating family (float32, float64), or the spec's {@code
 *       vary.dtype} list; like sizes, one choice per distinct dtype of the example, so tensors that
 *       shared a dtype still do;
 *   <li>values: redrawn (a salt), with optional extremes (0, -0, ±inf, NaN, ±1e30, 1e-30);
 *   <li>non-tensor arguments: only those the spec's {@code vary} gives a range.
 * </ul>
 *
 * <p>Choice order: sizes, dtypes, salt, then per tensor layout and extremes, then ranged arguments.
 * The all-zero sequence is the simplest variant: every varying size 0, contiguous, the example's dtype.
 */
public final class ExampleGenerator {
  static final double[] EXTREMES = {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e30, 1e-30};

  private final OpSchema schema;
  private final Example origin;
  private final Vary vary;
  private final List<Long> sizes;
  private final TreeSet<Long> fixed = new TreeSet<>();
  private final TreeSet<String> dtypes = new TreeSet<>();

  public ExampleGenerator(OpSchema schema, Example origin, Vary vary) {
    this.schema = schema;
    this.origin = origin;
    this.vary = vary;
    TreeSet<Long> all = new TreeSet<>();
    for (SpecValue v : allValues()) {
      collectSizes(v, all);
    }
    // a dtype choice is drawn per distinct dtype, but only where there is a choice to make
    dtypes.removeIf(d -> candidates(d).size() < 2);
    all.removeAll(fixed);
    this.sizes = List.copyOf(all);
  }

  /** The sequences tried before random ones: every varying size 0, then every varying size 1. */
  public List<List<Long>> edgeCases() {
    List<Long> ones = new ArrayList<>();
    for (int i = 0; i < sizes.size(); i++) {
      ones.add(1L);
    }
    return List.of(List.of(), ones);
  }

  /** The variant the choices describe. */
  public Example generate(Choices c) {
    Map<Long, Long> sizeMap = new LinkedHashMap<>();
    for (long s : sizes) {
      sizeMap.put(s, c.draw(2 * s + 1));
    }
    Map<String, String> dtypeMap = new LinkedHashMap<>();
    for (String d : dtypes) {
      List<String> options = candidates(d);
      dtypeMap.put(d, options.get((int) c.draw(options.size() - 1)));
    }
    long salt = c.draw(Integer.MAX_VALUE);
    List<SpecValue> args = new ArrayList<>();
    for (int i = 0; i < origin.args().size(); i++) {
      String name = i < schema.arguments().size() ? schema.arguments().get(i).name() : "";
      args.add(vary(origin.args().get(i), name, c, sizeMap, dtypeMap, salt));
    }
    Map<String, SpecValue> kwargs = new LinkedHashMap<>();
    for (Map.Entry<String, SpecValue> e : origin.kwargs().entrySet()) {
      kwargs.put(e.getKey(), vary(e.getValue(), e.getKey(), c, sizeMap, dtypeMap, salt));
    }
    return new Example(origin.ref(), args, kwargs, salt + 1);
  }

  private List<SpecValue> allValues() {
    List<SpecValue> out = new ArrayList<>(origin.args());
    out.addAll(origin.kwargs().values());
    return out;
  }

  private void collectSizes(SpecValue v, TreeSet<Long> all) {
    if (isTensor(v)) {
      dtypes.add(dtypeOf(v.object()));
      boolean explicit = v.object().containsKey("values");
      for (SpecValue s : v.object().get("tensor").list()) {
        if (s.isInteger()) {
          (explicit ? fixed : all).add((Long) s.value());
        }
      }
    } else if (v.isList()) {
      for (SpecValue e : v.list()) {
        collectSizes(e, all);
      }
    }
  }

  static boolean isTensor(SpecValue v) {
    return v.isObject() && v.object().containsKey("tensor") && v.object().get("tensor").isList();
  }

  private SpecValue vary(SpecValue v, String argName, Choices c, Map<Long, Long> sizeMap,
      Map<String, String> dtypeMap, long salt) {
    if (isTensor(v)) {
      return tensor(v, c, sizeMap, dtypeMap, salt);
    }
    if (v.isList() && v.list().stream().anyMatch(ExampleGenerator::isTensor)) {
      List<SpecValue> out = new ArrayList<>();
      for (SpecValue e : v.list()) {
        out.add(isTensor(e) ? tensor(e, c, sizeMap, dtypeMap, salt) : e);
      }
      return new SpecValue(out, v.location());
    }
    Vary.Range range = vary.ranges().get(argName);
    if (range == null) {
      return v;
    }
    if (v.isList()) {
      List<SpecValue> out = new ArrayList<>();
      for (SpecValue e : v.list()) {
        out.add(drawn(range, c, e.location()));
      }
      return new SpecValue(out, v.location());
    }
    return drawn(range, c, v.location());
  }

  private static SpecValue drawn(Vary.Range r, Choices c, String location) {
    if (r.integer()) {
      return new SpecValue(c.between((long) r.lo(), (long) r.hi()), location);
    }
    return new SpecValue(r.lo() + (r.hi() - r.lo()) * c.draw(1_000_000) / 1e6, location);
  }

  private SpecValue tensor(SpecValue v, Choices c, Map<Long, Long> sizeMap, Map<String, String> dtypeMap, long salt) {
    Map<String, SpecValue> m = new LinkedHashMap<>(v.object());
    String at = v.location();
    boolean explicit = m.containsKey("values");
    List<SpecValue> shape = new ArrayList<>();
    long numel = 1;
    for (SpecValue s : m.get("tensor").list()) {
      long size = s.isInteger() ? (Long) s.value() : 0;
      long now = explicit || !sizeMap.containsKey(size) ? size : sizeMap.get(size);
      shape.add(new SpecValue(now, s.location()));
      numel *= now;
    }
    m.put("tensor", new SpecValue(shape, at));
    List<String> layouts = new ArrayList<>(List.of("contiguous"));
    if (shape.size() >= 2) {
      layouts.add("transposed");
    }
    if (!shape.isEmpty()) {
      layouts.add("strided");
    }
    layouts.add("offset");
    if (shape.size() == 4) {
      layouts.add("channels_last");
    }
    m.put("layout", new SpecValue(layouts.get((int) c.draw(layouts.size() - 1)), at));
    String original = dtypeOf(m);
    String dtype = dtypeMap.getOrDefault(original, candidates(original).get(0));
    m.put("dtype", new SpecValue(dtype, at));
    boolean floating = dtype.startsWith("float") || dtype.equals("bfloat16");
    if (vary.extremes() && floating && !explicit && numel > 0) {
      double[] values = baseValues(m, numel, salt);
      long k = c.draw(Math.min(numel, 4));
      for (long i = 0; i < k; i++) {
        int pos = (int) c.draw(numel - 1);
        values[pos] = EXTREMES[(int) c.draw(EXTREMES.length - 1)];
      }
      List<SpecValue> vs = new ArrayList<>();
      for (double d : values) {
        vs.add(new SpecValue(d, at));
      }
      m.remove("init");
      m.put("values", new SpecValue(vs, at));
    }
    return new SpecValue(m, at);
  }

  static String dtypeOf(Map<String, SpecValue> m) {
    return m.containsKey("dtype") && m.get("dtype").isString() ? (String) m.get("dtype").value() : "float32";
  }

  /** The dtypes a tensor of dtype {@code d} may take; the first is the simplest. */
  private List<String> candidates(String d) {
    if (!vary.dtypes().isEmpty()) {
      return vary.dtypes();
    }
    return switch (d) {
      case "float32" -> List.of("float32", "float64");
      case "float64" -> List.of("float64", "float32");
      default -> List.of(d);
    };
  }

  /** Values as the example's init would draw them, from the salt (used when extremes are mixed in). */
  private static double[] baseValues(Map<String, SpecValue> m, long numel, long salt) {
    String init = m.containsKey("init") ? String.valueOf(m.get("init").value()) : "randn";
    double low = m.containsKey("low") && m.get("low").isNumber() ? m.get("low").number() : 0;
    double high = m.containsKey("high") && m.get("high").isNumber() ? m.get("high").number() : (init.equals("randint") ? 10 : 1);
    SplittableRandom r = new SplittableRandom(salt);
    double[] out = new double[(int) numel];
    for (int i = 0; i < out.length; i++) {
      out[i] = switch (init) {
        case "zeros" -> 0;
        case "ones" -> 1;
        case "arange" -> i;
        case "rand" -> low + (high - low) * r.nextDouble();
        case "randint" -> Math.floor(low + (high - low) * r.nextDouble());
        default -> r.nextGaussian();
      };
    }
    return out;
  }
}
