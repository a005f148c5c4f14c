package dev.opcheck4j.generate;

import dev.opcheck4j.generate.example.DtypeOptions;
import dev.opcheck4j.generate.example.ExampleArgs;
import dev.opcheck4j.spec.Domain;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * One pass over an example's values that makes one variant of them: each tensor gets the next drawn shape,
 * a drawn layout, its dtype's drawn dtype and (with extremes) some extreme values; each argument the spec
 * gives a range is drawn in it; every other value stays.
 */
final class VariantWalk {
  static final double[] EXTREMES = {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e30, 1e-30};

  private final Choices c;
  private final List<long[]> drawn;
  private final Map<String, String> dtypeMap;
  private final long salt;
  private final Vary vary;
  private final Domain domain;
  private final Map<String, Set<String>> rejectedLayouts;
  private final DtypeOptions dtypes;
  private int next;

  /**
   * @param drawn the drawn shapes, in the order of the example's tensors whose values are not given
   * @param dtypeMap the example's dtypes to those drawn for them
   * @param rejectedLayouts tensor label to the layouts the kernel was found to reject for it
   */
  VariantWalk(Choices c, List<long[]> drawn, Map<String, String> dtypeMap, long salt, Vary vary, Domain domain,
      Map<String, Set<String>> rejectedLayouts, DtypeOptions dtypes) {
    this.c = c;
    this.drawn = drawn;
    this.dtypeMap = dtypeMap;
    this.salt = salt;
    this.vary = vary;
    this.domain = domain;
    this.rejectedLayouts = rejectedLayouts;
    this.dtypes = dtypes;
  }

  /** The layouts generation may draw for a tensor of this rank, within the declared {@code domain}. */
  static List<String> layoutsForRank(int rank, Domain domain) {
    List<String> layouts = new ArrayList<>(List.of("contiguous"));
    if (rank >= 2) {
      layouts.add("transposed");
    }
    if (rank >= 1) {
      layouts.add("strided");
    }
    layouts.add("offset");
    if (rank == 4) {
      layouts.add("channels_last");
    }
    layouts.removeIf(l -> !domain.allowsLayout(l));
    return layouts;
  }

  /** {@code v}, the value of argument {@code argName}, in this variant. */
  SpecValue vary(SpecValue v, String argName) {
    if (ExampleArgs.isTensor(v)) {
      return tensor(v, argName);
    }
    if (v.isList() && v.list().stream().anyMatch(ExampleArgs::isTensor)) {
      List<SpecValue> out = new ArrayList<>();
      for (int j = 0; j < v.list().size(); j++) {
        SpecValue e = v.list().get(j);
        out.add(ExampleArgs.isTensor(e) ? tensor(e, argName + "[" + j + "]") : e);
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
        out.add(drawn(range, e.location()));
      }
      return new SpecValue(out, v.location());
    }
    return drawn(range, v.location());
  }

  private SpecValue tensor(SpecValue v, String label) {
    Map<String, SpecValue> m = new LinkedHashMap<>(v.object());
    String at = v.location();
    boolean explicit = m.containsKey("values");
    long[] now = explicit ? null : drawn.get(next++);
    List<SpecValue> shape = new ArrayList<>();
    long numel = 1;
    List<SpecValue> dims = m.get("tensor").list();
    for (int d = 0; d < dims.size(); d++) {
      SpecValue s = dims.get(d);
      long size = explicit ? (s.isInteger() ? (Long) s.value() : 0) : now[d];
      shape.add(new SpecValue(size, s.location()));
      numel *= size;
    }
    m.put("tensor", new SpecValue(shape, at));
    List<String> layouts = layoutsForRank(shape.size(), domain);
    layouts.removeAll(rejectedLayouts.getOrDefault(label, Set.of()));
    if (layouts.isEmpty()) {
      layouts.add(m.containsKey("layout") ? String.valueOf(m.get("layout").value()) : "contiguous");
    }
    m.put("layout", new SpecValue(layouts.get((int) c.draw(layouts.size() - 1)), at));
    String original = ExampleArgs.dtypeOf(m);
    String dtype = dtypeMap.getOrDefault(original, dtypes.candidates(original).get(0));
    m.put("dtype", new SpecValue(dtype, at));
    boolean floating = Domain.floating(dtype);
    if (!floating) {
      // a drawn integer or bool dtype cannot require grad; the example's float inputs still do
      m.remove("requires_grad");
    }
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

  private SpecValue drawn(Vary.Range r, String location) {
    if (r.integer()) {
      return new SpecValue(c.between((long) r.lo(), (long) r.hi()), location);
    }
    return new SpecValue(r.lo() + (r.hi() - r.lo()) * c.draw(1_000_000) / 1e6, location);
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
