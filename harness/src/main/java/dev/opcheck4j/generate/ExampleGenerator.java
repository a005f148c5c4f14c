package dev.opcheck4j.generate;

import dev.opcheck4j.spec.Domain;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * Generates variants of one example, every value drawn from {@link Choices} so that variants
 * replay and shrink. Pure Java: it writes examples, it never calls a kernel. What varies:
 *
 * <ul>
 *   <li>sizes: the first choice says whether sizes are <em>tied</em> (four times in five) or
 *       <em>untied</em>. Tied, each distinct size of the example's tensors maps to one drawn size in
 *       {@code 0..2×size+1}, so dimensions equal across arguments stay equal (broadcasting and
 *       matching shapes hold). Untied, every dimension is drawn on its own, so a square example
 *       gives non-square variants (tries the kernel rejects are discarded); a generator {@link #tied}
 *       (the kernel was found to reject untied sizes) reads the same choice and draws tied sizes
 *       whatever it says, so every other try stays the same input. Ranks never change;
 *       tensors with explicit {@code values} keep their shape, and their sizes stay fixed
 *       everywhere. An int list argument equal to a tensor's shape in the example (a {@code shape}
 *       argument) follows that tensor's generated shape;
 *   <li>layout: contiguous, transposed (2-d and up), strided, offset, channels_last (4-d), within
 *       the declared domain and without the layouts the kernel was found to reject for that tensor;
 *   <li>dtype: the spec's {@code vary.dtype} list; otherwise, for a floating-point example, its
 *       family (float32, float64) three tries in four and else one of half precision, bool and the
 *       integer types, every one within the declared domain and without those the kernel was found
 *       to reject; like sizes, one choice per distinct dtype of the example, so tensors that shared
 *       a dtype still do (with {@link #withMixedDtypes}, one try in five also gives some tensors a
 *       dtype of their own);
 *   <li>sizes related beyond equal ones ({@link #withRelations}): sums and offsets the kernel was found to
 *       need, kept by every try;
 *   <li>values: redrawn (a salt), with optional extremes (0, -0, ±inf, NaN, ±1e30, 1e-30);
 *   <li>non-tensor arguments: only those the spec's {@code vary} gives a range.
 * </ul>
 *
 * <p>A tensor keeps the example's {@code requires_grad} while its drawn dtype is floating-point, so
 * the gradient checks run on generated inputs wherever the example (a synthesized one included)
 * asks for gradients.
 *
 * <p>Choice order: tied or untied, sizes, dtypes, salt, then per tensor layout and extremes, then
 * ranged arguments, then (with mixed dtypes) whether and which. The all-zero sequence is the simplest variant: tied, every varying size 0,
 * contiguous, the example's dtype.
 */
public final class ExampleGenerator {
  static final double[] EXTREMES = {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e30, 1e-30};
  /**
   * Dtypes drawn beyond a floating-point example's family when the spec has no {@code vary.dtype}:
   * half precision, bool and the integer types (complex is not drawn: the value checks compare real
   * parts only).
   */
  static final List<String> OTHER_DTYPES = List.of("float16", "bfloat16", "bool", "uint8", "int8", "int16", "int32", "int64");
  /** A dtype choice outside the family is drawn when a choice in 0..OTHER_DTYPE_ODDS is the last. */
  static final long OTHER_DTYPE_ODDS = 3;
  /** The first choice is in 0..UNTIED; UNTIED unties sizes (one try in five). */
  static final long UNTIED = 4;
  /** The mixed-dtype choice is in 0..MIXED; MIXED gives tensors that shared a dtype their own (one try in five). */
  static final long MIXED = 4;

  private final OpSchema schema;
  private final Example origin;
  private final Vary vary;
  private final Domain domain;
  private final Map<String, Set<String>> rejectedLayouts;
  private final Set<String> rejectedDtypes;
  /** Whether sizes are drawn tied whatever the first choice says ({@link #tied}). */
  private boolean tiedOnly;
  private final List<Long> sizes;
  /** Sizes of tensors with explicit values: they never change, in any tensor. */
  private final TreeSet<Long> fixed = new TreeSet<>();
  private final TreeSet<String> dtypes = new TreeSet<>();
  /** Whether the example has a floating-point tensor ({@link Domain#takesDeclaredDtypes}). */
  private boolean anyFloating;
  /** Example sizes of every non-fixed tensor, in traversal order. */
  private final List<long[]> shapes = new ArrayList<>();
  /** Labels ('x', 'xs[1]') of every tensor, in traversal order, with their rank. */
  private final Map<String, Integer> ranks = new LinkedHashMap<>();
  /** Argument name to the index (in {@link #shapes}) of the tensor whose shape it equals. */
  private final Map<String, Integer> shapeArgs = new LinkedHashMap<>();
  /**
   * Int argument name to the example size it equals, and the constant offset: {size, offset}, the
   * argument being size + offset in the example (a length one longer than the input's, a count equal
   * to a dimension). Tied tries keep the relation: the argument follows the size drawn for it.
   */
  private final Map<String, long[]> intTies = new LinkedHashMap<>();
  /** Labels of the tensors of {@link #shapes}, in the same order. */
  private final List<String> shapeLabels = new ArrayList<>();
  /** The relations beyond equal sizes the example shows ({@link SizeRelation}). */
  private final SizeRelations relationsOf;
  /** Those every try keeps ({@link #withRelations}): the kernel was found to need them. */
  private List<SizeRelation> kept = List.of();
  /**
   * Tensor label to the dtypes it may take on its own, the others keeping theirs ({@link #withMixedDtypes}):
   * those the kernel accepted for it alone.
   */
  private Map<String, List<String>> mixed = Map.of();

  public ExampleGenerator(OpSchema schema, Example origin, Vary vary) {
    this(schema, origin, vary, Domain.ANY, Map.of(), Set.of());
  }

  /**
   * @param domain the declared domain
   * @param rejectedLayouts tensor label to the layouts the kernel rejected for it (discovered)
   * @param rejectedDtypes dtypes the kernel rejected (discovered)
   */
  public ExampleGenerator(OpSchema schema, Example origin, Vary vary, Domain domain,
      Map<String, Set<String>> rejectedLayouts, Set<String> rejectedDtypes) {
    this.schema = schema;
    this.origin = origin;
    this.vary = vary;
    this.domain = domain;
    this.rejectedLayouts = Map.copyOf(rejectedLayouts);
    this.rejectedDtypes = Set.copyOf(rejectedDtypes);
    TreeSet<Long> all = new TreeSet<>();
    List<String> names = argNames();
    List<SpecValue> values = allValues();
    for (int i = 0; i < values.size(); i++) {
      collectSizes(values.get(i), names.get(i), all);
    }
    for (int i = 0; i < values.size(); i++) {
      SpecValue v = values.get(i);
      if (v.isList() && !v.list().isEmpty() && v.list().stream().allMatch(SpecValue::isInteger)) {
        long[] asShape = v.list().stream().mapToLong(x -> (Long) x.value()).toArray();
        for (int k = 0; k < shapes.size(); k++) {
          if (java.util.Arrays.equals(shapes.get(k), asShape)) {
            shapeArgs.put(names.get(i), k);
            break;
          }
        }
      }
    }
    anyFloating = dtypes.stream().anyMatch(GradientInputs::floating);
    // a dtype choice is drawn per distinct dtype, but only where there is a choice to make
    dtypes.removeIf(d -> candidates(d).size() < 2);
    all.removeAll(fixed);
    this.sizes = List.copyOf(all);
    for (int i = 0; i < values.size(); i++) {
      SpecValue v = values.get(i);
      if (!v.isInteger() || vary.ranges().containsKey(names.get(i))) {
        continue;
      }
      long value = (Long) v.value();
      // sizes 0 and 1 are too common to say anything; an equal size first, then one off
      for (long offset : new long[] {0, 1, -1}) {
        if (value - offset >= 2 && all.contains(value - offset)) {
          intTies.put(names.get(i), new long[] {value - offset, offset});
          break;
        }
      }
    }
    Map<String, Long> targetInts = new LinkedHashMap<>();
    Map<String, Long> sourceInts = new LinkedHashMap<>();
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i).isInteger() && !names.get(i).isEmpty()) {
        long value = (Long) values.get(i).value();
        if (value >= 2 && !intTies.containsKey(names.get(i)) && !vary.ranges().containsKey(names.get(i))) {
          targetInts.put(names.get(i), value);
        }
        if (value >= 1) {
          sourceInts.put(names.get(i), value);
        }
      }
    }
    this.relationsOf = new SizeRelations(shapes, shapeLabels, fixed, targetInts, sourceInts, vary.ranges().keySet());
  }

  /**
   * The relations beyond equal sizes the example shows that can all be kept at once, most telling first
   * (sums of two dimensions, a dimension plus an int argument, plus a constant): what probing the kernel
   * starts from to learn which it needs.
   */
  public List<SizeRelation> relationCandidates() {
    return relationsOf.consistent(relationsOf.candidates());
  }

  /** The same generator keeping {@code relations} (of {@link #relationCandidates}) in every try, tied or untied. */
  public ExampleGenerator withRelations(List<SizeRelation> relations) {
    ExampleGenerator g = excluding(rejectedLayouts, rejectedDtypes);
    g.kept = relationsOf.ordered(relations);
    return g;
  }

  /**
   * Where the example's tensors could take dtypes that differ: each tensor label but the first of those
   * sharing a dtype, with the other dtypes it could take (the schema ties no two tensors' dtypes; the
   * kernel may). What probing the kernel with one tensor's dtype changed starts from.
   */
  public Map<String, List<String>> mixableDtypes() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    Set<String> firstOf = new java.util.HashSet<>();
    List<String> names = argNames();
    List<SpecValue> values = allValues();
    for (int i = 0; i < values.size(); i++) {
      rewrite(values.get(i), names.get(i), (v, label) -> {
        String d = dtypeOf(v.object());
        if (!v.object().containsKey("values") && !firstOf.add(d)) {
          List<String> others = new ArrayList<>(candidates(d));
          others.remove(d);
          if (!others.isEmpty()) {
            out.put(label, others);
          }
        }
        return v;
      });
    }
    return out;
  }

  /** The example with the tensor {@code label} alone made {@code dtype}: probes whether the kernel takes mixed dtypes. */
  public Example withDtypeOf(String label, String dtype) {
    return rewrite((v, l) -> l.equals(label) ? madeDtype(v, dtype) : v);
  }

  /**
   * The same generator also drawing, one try in five, each tensor of {@code mixed} in a dtype of its own
   * (label to the dtypes the kernel accepted for it alone), so that a kernel that reads one tensor as
   * another's dtype is reached.
   */
  public ExampleGenerator withMixedDtypes(Map<String, List<String>> mixed) {
    ExampleGenerator g = excluding(rejectedLayouts, rejectedDtypes);
    g.mixed = Map.copyOf(mixed);
    return g;
  }

  /** The relations every try keeps ({@link #withRelations}). */
  public List<SizeRelation> keptRelations() {
    return kept;
  }

  /**
   * Choices of a tied try whose every varying size {@code s} is {@code 2s + 1}, contiguous, in the example's
   * dtypes: no sum or offset of the example's sizes holds in it unless the generator keeps it.
   */
  public List<Long> freshSizes() {
    List<Long> out = new ArrayList<>(List.of(0L));
    sizes.forEach(s -> out.add(2 * s + 1));
    return out;
  }

  /** The relations between argument sizes this generator keeps in its tied tries, as coverage says them. */
  public List<String> relations() {
    List<String> out = new ArrayList<>();
    intTies.forEach((name, t) -> out.add("sizes related in " + origin.ref() + ": " + name + " = the size "
        + t[0] + (t[1] == 0 ? "" : t[1] > 0 ? " + " + t[1] : " - " + -t[1])
        + " of its tensors (tied tries keep it: " + name + " follows the size drawn for " + t[0] + ")"));
    return out;
  }

  /** The same generator without the layouts and dtypes the kernel was found to reject. */
  public ExampleGenerator excluding(Map<String, Set<String>> layouts, Set<String> dtypeNames) {
    ExampleGenerator g = new ExampleGenerator(schema, origin, vary, domain, layouts, dtypeNames);
    g.tiedOnly = tiedOnly;
    g.kept = kept;
    g.mixed = mixed;
    return g;
  }

  /**
   * The same generator drawing tied sizes only: for a kernel found to reject untied ones (shapes
   * that must match, a matmul's inner sizes). The first choice is still read, so a sequence that
   * drew tied sizes gives the same input from either generator.
   */
  public ExampleGenerator tied() {
    ExampleGenerator g = excluding(rejectedLayouts, rejectedDtypes);
    g.tiedOnly = true;
    return g;
  }

  /** Whether {@code sequence} (choices this generator made an input from) drew untied sizes. */
  public boolean drewUntied(List<Long> sequence) {
    return !tiedOnly && !sequence.isEmpty() && sequence.get(0) == UNTIED && !sizes.isEmpty();
  }

  /** The example this generator varies. */
  public Example origin() {
    return origin;
  }

  /**
   * The sequences tried before random ones, with what they are: every varying size 0, every varying
   * size 1, and untied (dimension d of every tensor has size d + 1, so no example stays square) unless
   * the generator is {@link #tied}.
   */
  public Map<String, List<Long>> edgeCases() {
    Map<String, List<Long>> out = new LinkedHashMap<>();
    out.put("sizes 0", List.of());
    List<Long> ones = new ArrayList<>(List.of(0L));
    for (int i = 0; i < sizes.size(); i++) {
      ones.add(1L);
    }
    out.put("sizes 1", ones);
    if (tiedOnly) {
      return out;
    }
    List<Long> untied = new ArrayList<>(List.of(UNTIED));
    for (long[] shape : shapes) {
      for (int d = 0; d < shape.length; d++) {
        if (!fixed.contains(shape[d])) {
          untied.add((long) d + 1);
        }
      }
    }
    out.put("sizes untied", untied);
    return out;
  }

  /** The variant the choices describe. */
  public Example generate(Choices c) {
    boolean untied = c.draw(UNTIED) == UNTIED && !tiedOnly;
    List<long[]> drawn = new ArrayList<>();
    Map<Long, Long> drawnSizes = new LinkedHashMap<>();
    if (untied) {
      for (long[] shape : shapes) {
        long[] s = new long[shape.length];
        for (int d = 0; d < shape.length; d++) {
          s[d] = fixed.contains(shape[d]) ? shape[d] : c.draw(2 * shape[d] + 1);
        }
        drawn.add(s);
      }
    } else {
      Map<Long, Long> sizeMap = drawnSizes;
      for (long s : sizes) {
        sizeMap.put(s, c.draw(2 * s + 1));
      }
      for (long[] shape : shapes) {
        long[] s = new long[shape.length];
        for (int d = 0; d < shape.length; d++) {
          s[d] = sizeMap.getOrDefault(shape[d], shape[d]);
        }
        drawn.add(s);
      }
    }
    relationsOf.keepSizes(kept, drawn, drawnSizes);
    Map<String, String> dtypeMap = new LinkedHashMap<>();
    for (String d : dtypes) {
      List<String> options = candidates(d);
      int family = familySize(d, options);
      if (family < options.size() && c.draw(OTHER_DTYPE_ODDS) == OTHER_DTYPE_ODDS) {
        // one try in four draws a dtype outside the example's family (bool, integers, half precision)
        dtypeMap.put(d, options.get(family + (int) c.draw(options.size() - family - 1)));
      } else {
        dtypeMap.put(d, options.get((int) c.draw(family - 1)));
      }
    }
    long salt = c.draw(Integer.MAX_VALUE);
    Walk walk = new Walk(c, drawn, dtypeMap, salt);
    List<String> names = argNames();
    List<SpecValue> args = new ArrayList<>();
    for (int i = 0; i < origin.args().size(); i++) {
      args.add(walk.vary(origin.args().get(i), names.get(i)));
    }
    Map<String, SpecValue> kwargs = new LinkedHashMap<>();
    for (Map.Entry<String, SpecValue> e : origin.kwargs().entrySet()) {
      kwargs.put(e.getKey(), walk.vary(e.getValue(), e.getKey()));
    }
    // shape arguments follow the generated shape of the tensor they matched
    for (Map.Entry<String, Integer> link : shapeArgs.entrySet()) {
      int at = names.indexOf(link.getKey());
      List<SpecValue> vs = new ArrayList<>();
      SpecValue old = at >= 0 && at < args.size() ? args.get(at) : kwargs.get(link.getKey());
      if (old == null || vary.ranges().containsKey(link.getKey())) {
        continue;
      }
      for (long s : drawn.get(link.getValue())) {
        vs.add(new SpecValue(s, old.location()));
      }
      SpecValue now = new SpecValue(vs, old.location());
      if (at >= 0 && at < args.size()) {
        args.set(at, now);
      } else {
        kwargs.put(link.getKey(), now);
      }
    }
    if (!untied) {
      // int arguments related to a size follow it (a length one longer than the input's)
      for (Map.Entry<String, long[]> tie : intTies.entrySet()) {
        long now = sizeMapOf(tie.getValue()[0], drawnSizes) + tie.getValue()[1];
        int at = names.indexOf(tie.getKey());
        SpecValue old = at >= 0 && at < args.size() ? args.get(at) : kwargs.get(tie.getKey());
        if (old == null || now < 0) {
          continue;
        }
        SpecValue v = new SpecValue(now, old.location());
        if (at >= 0 && at < args.size()) {
          args.set(at, v);
        } else {
          kwargs.put(tie.getKey(), v);
        }
      }
    }
    // int arguments a learned relation gives (a length that is the sum of two sizes), in tied and untied tries
    for (SizeRelation r : kept) {
      if (r.intTarget() != null) {
        SpecValue source = r.intSource() == null ? null : argument(names, args, kwargs, r.intSource());
        long now = SizeRelations.intValue(r, drawn, source != null && source.isInteger() ? (Long) source.value() : 0);
        SpecValue old = argument(names, args, kwargs, r.intTarget());
        if (old != null) {
          put(names, args, kwargs, r.intTarget(), new SpecValue(now, old.location()));
        }
      }
    }
    // last, so that a generator without mixed dtypes makes every earlier choice as before
    if (!mixed.isEmpty() && c.draw(MIXED) == MIXED) {
      Map<String, String> own = new LinkedHashMap<>();
      mixed.forEach((label, options) -> own.put(label, options.get((int) c.draw(options.size() - 1))));
      for (int i = 0; i < args.size(); i++) {
        args.set(i, rewrite(args.get(i), names.get(i), (v, l) -> own.containsKey(l) ? madeDtype(v, own.get(l)) : v));
      }
      kwargs.replaceAll((name, v) -> rewrite(v, name, (x, l) -> own.containsKey(l) ? madeDtype(x, own.get(l)) : x));
    }
    return new Example(origin.ref(), args, kwargs, salt + 1);
  }

  private static SpecValue argument(List<String> names, List<SpecValue> args, Map<String, SpecValue> kwargs, String name) {
    int at = names.indexOf(name);
    return at >= 0 && at < args.size() ? args.get(at) : kwargs.get(name);
  }

  private static void put(List<String> names, List<SpecValue> args, Map<String, SpecValue> kwargs, String name,
      SpecValue v) {
    int at = names.indexOf(name);
    if (at >= 0 && at < args.size()) {
      args.set(at, v);
    } else {
      kwargs.put(name, v);
    }
  }

  private static long sizeMapOf(long size, Map<Long, Long> drawnSizes) {
    return drawnSizes.getOrDefault(size, size);
  }

  /** Tensor labels ('x', 'xs[1]') with their rank, in argument order. */
  public Map<String, Integer> tensorRanks() {
    return ranks;
  }

  /** The layouts generation may draw for a tensor of this rank (declared domain only). */
  public List<String> layoutsForRank(int rank) {
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

  /** The example with only the tensor {@code label} laid out as {@code layout}: probes the domain. */
  public Example withLayout(String label, String layout) {
    return rewrite((v, l) -> l.equals(label) ? withKey(v, "layout", layout) : v);
  }

  /**
   * The example with every tensor of dtype {@code from} made {@code to}: probes the domain. A tensor
   * made an integer or bool dtype no longer requires grad, as on a generated input (PyTorch allows
   * gradients on floating-point tensors only).
   */
  public Example withDtype(String from, String to) {
    return rewrite((v, l) -> dtypeOf(v.object()).equals(from) ? madeDtype(v, to) : v);
  }

  private static SpecValue madeDtype(SpecValue v, String to) {
    SpecValue made = withKey(v, "dtype", to);
    if (GradientInputs.floating(to) || !made.object().containsKey("requires_grad")) {
      return made;
    }
    Map<String, SpecValue> m = new LinkedHashMap<>(made.object());
    m.remove("requires_grad");
    return new SpecValue(m, v.location());
  }

  /** Whether {@code dtype} is drawn from beyond the example's family ({@link #OTHER_DTYPES}, no {@code vary.dtype}). */
  public boolean beyondFamily(String dtype) {
    return vary.dtypes().isEmpty() && OTHER_DTYPES.contains(dtype) && dtypes.stream().noneMatch(dtype::equals);
  }

  /** Dtypes the example's tensors may take other than their own, per dtype of the example. */
  public Map<String, List<String>> otherDtypes() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    TreeSet<String> seen = new TreeSet<>();
    for (SpecValue v : allValues()) {
      collectDtypes(v, seen);
    }
    for (String d : seen) {
      List<String> others = new ArrayList<>(candidates(d));
      others.remove(d);
      if (!others.isEmpty()) {
        out.put(d, others);
      }
    }
    return out;
  }

  /** {@code generated} with argument {@code name} put back as the example has it. */
  public Example revert(Example generated, String name) {
    List<String> names = argNames();
    List<SpecValue> args = new ArrayList<>(generated.args());
    int at = names.indexOf(name);
    Map<String, SpecValue> kwargs = new LinkedHashMap<>(generated.kwargs());
    if (at >= 0 && at < args.size()) {
      args.set(at, origin.args().get(at));
    } else if (origin.kwargs().containsKey(name)) {
      kwargs.put(name, origin.kwargs().get(name));
    }
    return new Example(generated.ref(), args, kwargs, generated.salt());
  }

  /** Names of the arguments {@code generated} gives differently from the example. */
  public List<String> changedArguments(Example generated) {
    List<String> out = new ArrayList<>();
    List<String> names = argNames();
    for (int i = 0; i < origin.args().size() && i < generated.args().size(); i++) {
      if (!Objects.equals(plain(origin.args().get(i)), plain(generated.args().get(i)))) {
        out.add(names.get(i));
      }
    }
    for (Map.Entry<String, SpecValue> e : origin.kwargs().entrySet()) {
      if (!Objects.equals(plain(e.getValue()), plain(generated.kwargs().get(e.getKey())))) {
        out.add(e.getKey());
      }
    }
    return out;
  }

  /** A value without locations, salts or drawn values: what a tensor is, not what it holds; null for None. */
  private static Object plain(SpecValue v) {
    if (v == null) {
      return null;
    }
    if (v.isList()) {
      return v.list().stream().map(ExampleGenerator::plain).toList();
    }
    if (v.isObject()) {
      Map<String, Object> m = new java.util.TreeMap<>();
      v.object().forEach((k, x) -> {
        if (!k.equals("values") || !v.object().containsKey("tensor")) {
          m.put(k, plain(x));
        }
      });
      return m;
    }
    return v.value();
  }

  private interface TensorEdit {
    SpecValue apply(SpecValue tensor, String label);
  }

  private Example rewrite(TensorEdit edit) {
    List<String> names = argNames();
    List<SpecValue> args = new ArrayList<>();
    for (int i = 0; i < origin.args().size(); i++) {
      args.add(rewrite(origin.args().get(i), names.get(i), edit));
    }
    Map<String, SpecValue> kwargs = new LinkedHashMap<>();
    for (Map.Entry<String, SpecValue> e : origin.kwargs().entrySet()) {
      kwargs.put(e.getKey(), rewrite(e.getValue(), e.getKey(), edit));
    }
    return new Example(origin.ref(), args, kwargs, origin.salt());
  }

  private static SpecValue rewrite(SpecValue v, String label, TensorEdit edit) {
    if (isTensor(v)) {
      return edit.apply(v, label);
    }
    if (v.isList() && v.list().stream().anyMatch(ExampleGenerator::isTensor)) {
      List<SpecValue> out = new ArrayList<>();
      for (int j = 0; j < v.list().size(); j++) {
        SpecValue e = v.list().get(j);
        out.add(isTensor(e) ? edit.apply(e, label + "[" + j + "]") : e);
      }
      return new SpecValue(out, v.location());
    }
    return v;
  }

  private static SpecValue withKey(SpecValue tensor, String key, String value) {
    Map<String, SpecValue> m = new LinkedHashMap<>(tensor.object());
    m.put(key, new SpecValue(value, tensor.location()));
    return new SpecValue(m, tensor.location());
  }

  private List<String> argNames() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < origin.args().size(); i++) {
      out.add(i < schema.arguments().size() ? schema.arguments().get(i).name() : "");
    }
    out.addAll(origin.kwargs().keySet());
    return out;
  }

  private List<SpecValue> allValues() {
    List<SpecValue> out = new ArrayList<>(origin.args());
    out.addAll(origin.kwargs().values());
    return out;
  }

  private void collectDtypes(SpecValue v, TreeSet<String> seen) {
    if (isTensor(v)) {
      seen.add(dtypeOf(v.object()));
    } else if (v.isList()) {
      for (SpecValue e : v.list()) {
        collectDtypes(e, seen);
      }
    }
  }

  private void collectSizes(SpecValue v, String label, TreeSet<Long> all) {
    if (isTensor(v)) {
      dtypes.add(dtypeOf(v.object()));
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
        shapeLabels.add(label);
      }
    } else if (v.isList()) {
      for (int j = 0; j < v.list().size(); j++) {
        collectSizes(v.list().get(j), label + "[" + j + "]", all);
      }
    }
  }

  static boolean isTensor(SpecValue v) {
    return v.isObject() && v.object().containsKey("tensor") && v.object().get("tensor").isList();
  }

  /** One pass over the example's values, handing out the drawn shapes in traversal order. */
  private final class Walk {
    private final Choices c;
    private final List<long[]> drawn;
    private final Map<String, String> dtypeMap;
    private final long salt;
    private int next;

    Walk(Choices c, List<long[]> drawn, Map<String, String> dtypeMap, long salt) {
      this.c = c;
      this.drawn = drawn;
      this.dtypeMap = dtypeMap;
      this.salt = salt;
    }

    SpecValue vary(SpecValue v, String argName) {
      if (isTensor(v)) {
        return tensor(v, argName);
      }
      if (v.isList() && v.list().stream().anyMatch(ExampleGenerator::isTensor)) {
        List<SpecValue> out = new ArrayList<>();
        for (int j = 0; j < v.list().size(); j++) {
          SpecValue e = v.list().get(j);
          out.add(isTensor(e) ? tensor(e, argName + "[" + j + "]") : e);
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
      List<String> layouts = layoutsForRank(shape.size());
      layouts.removeAll(rejectedLayouts.getOrDefault(label, Set.of()));
      if (layouts.isEmpty()) {
        layouts.add(m.containsKey("layout") ? String.valueOf(m.get("layout").value()) : "contiguous");
      }
      m.put("layout", new SpecValue(layouts.get((int) c.draw(layouts.size() - 1)), at));
      String original = dtypeOf(m);
      String dtype = dtypeMap.getOrDefault(original, candidates(original).get(0));
      m.put("dtype", new SpecValue(dtype, at));
      boolean floating = GradientInputs.floating(dtype);
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
  }

  private static SpecValue drawn(Vary.Range r, Choices c, String location) {
    if (r.integer()) {
      return new SpecValue(c.between((long) r.lo(), (long) r.hi()), location);
    }
    return new SpecValue(r.lo() + (r.hi() - r.lo()) * c.draw(1_000_000) / 1e6, location);
  }

  static String dtypeOf(Map<String, SpecValue> m) {
    return m.containsKey("dtype") && m.get("dtype").isString() ? (String) m.get("dtype").value() : "float32";
  }

  /**
   * The dtypes a tensor of dtype {@code d} may take; the first is the simplest (its own, when allowed).
   * The spec's {@code vary.dtype} list when it gives one. Otherwise a floating-point example's family
   * (float32 and float64) first, then {@link #OTHER_DTYPES}: every one is probed by domain discovery,
   * and those the kernel rejects with an error are left out, so generation covers every dtype the
   * kernel accepts. A non-floating example dtype (an index tensor) is kept, unless the declared dtypes
   * are about it ({@link Domain#takesDeclaredDtypes}). Every declared dtype a tensor may take is among them.
   */
  private List<String> candidates(String d) {
    List<String> base;
    if (!vary.dtypes().isEmpty()) {
      base = vary.dtypes();
    } else {
      base = new ArrayList<>(switch (d) {
        case "float32" -> List.of("float32", "float64");
        case "float64" -> List.of("float64", "float32");
        default -> List.of(d);
      });
      if (GradientInputs.floating(d)) {
        OTHER_DTYPES.stream().filter(x -> !base.contains(x)).forEach(base::add);
      }
      if (Domain.takesDeclaredDtypes(d, anyFloating)) {
        // every declared dtype is tried, an integer op's other integer and bool dtypes too
        domain.dtypes().stream().filter(x -> !base.contains(x)).forEach(base::add);
      }
    }
    List<String> out = new ArrayList<>();
    for (String x : base) {
      if (domain.allowsDtype(x) && !rejectedDtypes.contains(x)) {
        out.add(x);
      }
    }
    return out.isEmpty() ? List.of(d) : out;
  }

  /**
   * How many of {@code options} (the candidates of {@code d}) are its family, drawn three tries in
   * four: the spec's own list is all family; otherwise the floating-point dtypes before the first
   * other one.
   */
  private int familySize(String d, List<String> options) {
    if (!vary.dtypes().isEmpty()) {
      return options.size();
    }
    int n = 0;
    while (n < options.size() && !OTHER_DTYPES.contains(options.get(n))) {
      n++;
    }
    return Math.max(n, 1);
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
