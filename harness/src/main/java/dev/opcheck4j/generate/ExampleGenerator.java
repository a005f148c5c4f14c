package dev.opcheck4j.generate;

import dev.opcheck4j.generate.example.DtypeOptions;
import dev.opcheck4j.generate.example.ExampleArgs;
import dev.opcheck4j.generate.example.ExampleShapes;
import dev.opcheck4j.generate.example.SizeRelation;
import dev.opcheck4j.generate.example.SizeRelations;
import dev.opcheck4j.spec.Domain;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
 *       everywhere ({@link ExampleShapes}). An int list argument equal to a tensor's shape in the example (a
 *       {@code shape} argument) follows that tensor's generated shape;
 *   <li>layout: contiguous, transposed (2-d and up), strided, offset, channels_last (4-d), within
 *       the declared domain and without the layouts the kernel was found to reject for that tensor;
 *   <li>dtype ({@link DtypeOptions}): the spec's {@code vary.dtype} list; otherwise, for a floating-point
 *       example, its family (float32, float64) three tries in four and else one of half precision, bool and
 *       the integer types, every one within the declared domain and without those the kernel was found
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
 * ranged arguments, then (with mixed dtypes) whether and which. The all-zero sequence is the simplest
 * variant: tied, every varying size 0, contiguous, the example's dtype.
 */
public final class ExampleGenerator {
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
  private final ExampleArgs args;
  private final ExampleShapes shapes;
  private final DtypeOptions dtypes;
  private final SizeDraw sizes;
  /** Whether sizes are drawn tied whatever the first choice says ({@link #tied}). */
  private boolean tiedOnly;
  /** The relations beyond equal sizes the example shows ({@link SizeRelation}). */
  private final SizeRelations relationsOf;
  /** Those every try keeps ({@link #withRelations}): the kernel was found to need them. */
  private List<SizeRelation> kept = List.of();
  /** Whether every try keeps the example's own sizes ({@link #withSizesKept}). */
  private boolean sizesKept;
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
    this.args = new ExampleArgs(origin, schema.arguments().stream().map(OpSchema.Argument::name).toList());
    this.shapes = new ExampleShapes(args);
    this.dtypes = new DtypeOptions(args, vary, domain, rejectedDtypes);
    this.relationsOf = shapes.relations(args, vary);
    this.sizes = new SizeDraw(shapes, relationsOf);
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

  /** The relations every try keeps ({@link #withRelations}). */
  public List<SizeRelation> keptRelations() {
    return kept;
  }

  /**
   * The same generator keeping the example's own sizes in every try, varying the rest (ints, values, dtypes,
   * layouts): for a kernel that rejected the example's sizes drawn anew with every relation they show kept, so
   * that sizes drawn would only be rejected.
   */
  public ExampleGenerator withSizesKept() {
    ExampleGenerator g = excluding(rejectedLayouts, rejectedDtypes);
    g.sizesKept = true;
    return g;
  }

  /** Whether every try keeps the example's sizes ({@link #withSizesKept}). */
  public boolean keepsSizes() {
    return sizesKept;
  }

  /**
   * Where the example's tensors could take dtypes that differ: each tensor label but the first of those
   * sharing a dtype, with the other dtypes it could take (the schema ties no two tensors' dtypes; the
   * kernel may). What probing the kernel with one tensor's dtype changed starts from.
   */
  public Map<String, List<String>> mixableDtypes() {
    return dtypes.mixable(args);
  }

  /** The example with the tensor {@code label} alone made {@code dtype}: probes whether the kernel takes mixed dtypes. */
  public Example withDtypeOf(String label, String dtype) {
    return args.rewrite((v, l) -> l.equals(label) ? ExampleArgs.madeDtype(v, dtype) : v);
  }

  /**
   * The same generator also drawing, one try in five, each tensor of {@code mixed} in a dtype of its own
   * (label to the dtypes the kernel accepted for it alone), so that a kernel that reads one tensor as
   * another's dtype is reached.
   */
  public ExampleGenerator withMixedDtypes(Map<String, List<String>> mixed) {
    ExampleGenerator g = excluding(rejectedLayouts, rejectedDtypes);
    // in the caller's order: the draws follow it, and Map.copyOf's order changes from one JVM to the next
    g.mixed = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(mixed));
    return g;
  }

  /**
   * Choices of a tied try whose every varying size {@code s} is {@code 2s + 1}, contiguous, in the example's
   * dtypes: no sum or offset of the example's sizes holds in it unless the generator keeps it.
   */
  public List<Long> freshSizes() {
    return sizes.fresh();
  }

  /**
   * Choices of a tied try whose every varying size {@code s} is {@code s + 2}: a second draw, independent of
   * {@link #freshSizes}'s, on which what one probe showed is probed again.
   */
  public List<Long> freshSizesAgain() {
    return sizes.freshAgain();
  }

  /** The shape of each tensor of {@code e} (this generator's example or a variant of it), by label ('x', 'xs[1]'). */
  public Map<String, long[]> shapesOf(Example e) {
    return new ExampleArgs(e, args.names()).shapes();
  }

  /** The same generator without the layouts and dtypes the kernel was found to reject. */
  public ExampleGenerator excluding(Map<String, Set<String>> layouts, Set<String> dtypeNames) {
    ExampleGenerator g = new ExampleGenerator(schema, origin, vary, domain, layouts, dtypeNames);
    g.tiedOnly = tiedOnly;
    g.kept = kept;
    g.sizesKept = sizesKept;
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
    return !tiedOnly && !sequence.isEmpty() && sequence.get(0) == UNTIED && !shapes.sizes().isEmpty();
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
    return sizesKept ? Map.of() : sizes.edgeCases(tiedOnly, UNTIED);
  }

  /** The variant the choices describe. */
  public Example generate(Choices c) {
    boolean untied = c.draw(UNTIED) == UNTIED && !tiedOnly;
    List<long[]> drawn = sizes.draw(c, untied, kept);
    if (sizesKept) {
      drawn = sizes.exampleShapes(); // drawn all the same, so that every later choice is the one it would be
    }
    Map<String, String> dtypeMap = new LinkedHashMap<>();
    for (String d : dtypes.drawn()) {
      List<String> options = dtypes.candidates(d);
      int family = dtypes.familySize(options);
      if (family < options.size() && c.draw(OTHER_DTYPE_ODDS) == OTHER_DTYPE_ODDS) {
        // one try in four draws a dtype outside the example's family (bool, integers, half precision)
        dtypeMap.put(d, options.get(family + (int) c.draw(options.size() - family - 1)));
      } else {
        dtypeMap.put(d, options.get((int) c.draw(family - 1)));
      }
    }
    long salt = c.draw(Integer.MAX_VALUE);
    VariantWalk walk = new VariantWalk(c, drawn, dtypeMap, salt, vary, domain, rejectedLayouts, dtypes);
    List<String> names = args.names();
    List<SpecValue> out = new ArrayList<>();
    for (int i = 0; i < origin.args().size(); i++) {
      out.add(walk.vary(origin.args().get(i), names.get(i)));
    }
    Map<String, SpecValue> kwargs = new LinkedHashMap<>();
    for (Map.Entry<String, SpecValue> e : origin.kwargs().entrySet()) {
      kwargs.put(e.getKey(), walk.vary(e.getValue(), e.getKey()));
    }
    sizes.follow(drawn, args, out, kwargs, vary, kept);
    // last, so that a generator without mixed dtypes makes every earlier choice as before
    if (!mixed.isEmpty() && c.draw(MIXED) == MIXED) {
      Map<String, String> own = new LinkedHashMap<>();
      mixed.forEach((label, options) -> own.put(label, options.get((int) c.draw(options.size() - 1))));
      ExampleArgs.TensorEdit edit = (v, l) -> own.containsKey(l) ? ExampleArgs.madeDtype(v, own.get(l)) : v;
      for (int i = 0; i < out.size(); i++) {
        out.set(i, ExampleArgs.rewrite(out.get(i), names.get(i), edit));
      }
      kwargs.replaceAll((name, v) -> ExampleArgs.rewrite(v, name, edit));
    }
    return new Example(origin.ref(), out, kwargs, salt + 1);
  }

  /** Tensor labels ('x', 'xs[1]') with their rank, in argument order. */
  public Map<String, Integer> tensorRanks() {
    return shapes.ranks();
  }

  /** The layouts generation may draw for a tensor of this rank (declared domain only). */
  public List<String> layoutsForRank(int rank) {
    return VariantWalk.layoutsForRank(rank, domain);
  }

  /** The example with only the tensor {@code label} laid out as {@code layout}: probes the domain. */
  public Example withLayout(String label, String layout) {
    return args.rewrite((v, l) -> l.equals(label) ? ExampleArgs.withKey(v, "layout", layout) : v);
  }

  /**
   * The example with every tensor of dtype {@code from} made {@code to}: probes the domain. A tensor
   * made an integer or bool dtype no longer requires grad, as on a generated input (PyTorch allows
   * gradients on floating-point tensors only).
   */
  public Example withDtype(String from, String to) {
    return args.rewrite((v, l) -> ExampleArgs.dtypeOf(v.object()).equals(from) ? ExampleArgs.madeDtype(v, to) : v);
  }

  /** Whether {@code dtype} is drawn from beyond the example's family ({@link DtypeOptions#OTHER_DTYPES}, no {@code vary.dtype}). */
  public boolean beyondFamily(String dtype) {
    return dtypes.beyondFamily(dtype);
  }

  /** Dtypes the example's tensors may take other than their own, per dtype of the example. */
  public Map<String, List<String>> otherDtypes() {
    return dtypes.others();
  }

  /** {@code generated} with argument {@code name} put back as the example has it. */
  public Example revert(Example generated, String name) {
    return args.revert(generated, name);
  }

  /** Names of the arguments {@code generated} gives differently from the example. */
  public List<String> changedArguments(Example generated) {
    return args.changedArguments(generated);
  }
}
