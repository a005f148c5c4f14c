package dev.opcheck4j.generate;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Candidate examples for an op that has none, from its schema alone: small shapes, common dtypes,
 * small numbers. Candidate 0 is the simplest (every tensor {@code float32[3, 4]}); the others are
 * drawn from {@link Choices} seeded by the run's seed, so the search is deterministic. Pure Java:
 * which candidate the kernel accepts is for the caller to find out. Arguments with a default are
 * left out (the default is used). When the op can carry gradients (a kernel at an Autograd key or
 * CompositeImplicitAutograd), its floating-point inputs require grad ({@link GradientInputs}), so the
 * autograd and gradcheck checks run on them; an op with backend kernels only is not asked for a
 * gradient it has no formula for.
 */
public final class ExampleSynthesizer {
  static final List<List<Long>> SHAPES = List.of(List.of(3L, 4L), List.of(4L), List.of(3L, 3L), List.of(2L, 3L, 4L),
      List.of(), List.of(2L, 3L, 4L, 5L), List.of(1L));
  static final List<String> DTYPES = List.of("float32", "float64", "int64", "bool");
  static final List<Long> INTS = List.of(1L, 0L, 2L, 3L, -1L);
  static final List<Double> FLOATS = List.of(0.5, 1.0, 2.0, 0.0, -1.0);
  static final String LOCATION = "synthesized";
  /** Int lists are most often a shape, dims, a box or coordinates: the tensors' shape (null) first. */
  static final List<List<Long>> INT_LISTS = java.util.Arrays.asList(null, List.of(0L), List.of(1L), List.of(),
      List.of(0L, 1L), List.of(0L, 0L), List.of(0L, 0L, 1L, 1L));
  /** The first candidates: every shape with every int-list option, all else simplest. */
  public static final int GRID = SHAPES.size() * INT_LISTS.size();

  private final OpSchema schema;
  private final String refPrefix;
  private final boolean gradients;

  /**
   * @param refPrefix names the examples in reports, e.g. {@code my_ops::crop synthesized}
   * @param gradients whether floating-point inputs require grad (the op can carry gradients)
   */
  public ExampleSynthesizer(OpSchema schema, String refPrefix, boolean gradients) {
    this.schema = schema;
    this.refPrefix = refPrefix;
    this.gradients = gradients;
  }

  /** Why no example can be written for this op (an argument type examples cannot give), if so. */
  public Optional<String> unsupported() {
    for (OpSchema.Argument a : schema.arguments()) {
      if (a.defaultValue().isPresent() || a.type().isOptional()) {
        continue;
      }
      if (!supported(a.type())) {
        return Optional.of("argument '" + a.name() + "' has type " + a.type().text() + ", which examples cannot give");
      }
    }
    return Optional.empty();
  }

  private static boolean supported(OpSchema.Type t) {
    OpSchema.Type b = t.unwrapOptional();
    return switch (b.kind()) {
      case "TensorType", "IntType", "SymIntType", "FloatType", "NumberType", "BoolType", "StringType", "ScalarTypeType" -> true;
      case "ListType" -> supported(b.contained().get(0)) && !b.contained().get(0).unwrapOptional().isList();
      default -> false;
    };
  }

  /**
   * Candidate {@code k}: 0 is the simplest; the first {@link #GRID} go through every shape with every
   * int-list option (float32, all else simplest); the others are drawn from {@code seed} and {@code k}.
   */
  public Example candidate(int k, long seed) {
    boolean grid = k < GRID;
    Choices c = grid ? Choices.replay(List.of()) : Choices.random(seed * 31 + k);
    List<Long> shape = grid ? SHAPES.get(k / INT_LISTS.size()) : SHAPES.get((int) c.draw(SHAPES.size() - 1));
    String dtype = grid ? DTYPES.get(0) : DTYPES.get((int) c.draw(DTYPES.size() - 1));
    int listOption = grid ? k % INT_LISTS.size() : (int) c.draw(INT_LISTS.size() - 1);
    List<SpecValue> args = new ArrayList<>();
    Map<String, SpecValue> kwargs = new LinkedHashMap<>();
    // the grid's floats go up argument by argument (0.5, 1.0, 2.0, ...): one value for all of them
    // made a degenerate example of a range (clamp_(x, lo, hi) with lo = hi)
    int[] floatsSoFar = grid ? new int[1] : null;
    for (OpSchema.Argument a : schema.arguments()) {
      if (a.defaultValue().isPresent()) {
        continue;
      }
      SpecValue v = value(a.type(), shape, dtype, listOption, c, floatsSoFar);
      if (a.kwargOnly()) {
        kwargs.put(a.name(), v);
      } else {
        args.add(v);
      }
    }
    Example candidate = new Example(refPrefix + " #" + k, args, kwargs);
    return gradients ? GradientInputs.requiringGrad(schema, candidate) : candidate;
  }

  /** @param floatsSoFar how many floats the grid's candidate has had, or null to draw them */
  private static SpecValue value(OpSchema.Type type, List<Long> shape, String dtype, int listOption, Choices c,
      int[] floatsSoFar) {
    if (type.isOptional() && c.rarely(3)) {
      return new SpecValue(null, LOCATION);
    }
    OpSchema.Type b = type.unwrapOptional();
    return switch (b.kind()) {
      case "TensorType" -> tensor(c.rarely(3) && shape.size() >= 2 ? transposed(shape) : shape, dtype);
      case "IntType", "SymIntType" -> new SpecValue(INTS.get((int) c.draw(INTS.size() - 1)), LOCATION);
      case "FloatType", "NumberType" -> new SpecValue(floatsSoFar != null ? FLOATS.get(floatsSoFar[0]++ % FLOATS.size())
          : FLOATS.get((int) c.draw(FLOATS.size() - 1)), LOCATION);
      case "BoolType" -> new SpecValue(c.draw(1) == 1, LOCATION);
      case "StringType" -> new SpecValue("", LOCATION);
      case "ScalarTypeType" -> new SpecValue(Map.of("dtype", new SpecValue(dtype, LOCATION)), LOCATION);
      case "ListType" -> list(b.contained().get(0), shape, dtype, listOption, c, floatsSoFar);
      default -> new SpecValue(null, LOCATION);
    };
  }

  private static SpecValue list(OpSchema.Type element, List<Long> shape, String dtype, int listOption, Choices c,
      int[] floatsSoFar) {
    List<SpecValue> out = new ArrayList<>();
    OpSchema.Type e = element.unwrapOptional();
    if (e.kind().equals("IntType") || e.kind().equals("SymIntType")) {
      List<Long> option = INT_LISTS.get(listOption);
      for (long x : option == null ? shape : option) {
        out.add(new SpecValue(x, LOCATION));
      }
      return new SpecValue(out, LOCATION);
    }
    long n = 2 + c.draw(1);
    for (long i = 0; i < n; i++) {
      out.add(element.isOptional() && i == 1 && c.rarely(2) ? new SpecValue(null, LOCATION) : value(e, shape, dtype, listOption, c, floatsSoFar));
    }
    return new SpecValue(out, LOCATION);
  }

  private static List<Long> transposed(List<Long> shape) {
    List<Long> t = new ArrayList<>(shape);
    int n = t.size();
    Long last = t.get(n - 1);
    t.set(n - 1, t.get(n - 2));
    t.set(n - 2, last);
    return t;
  }

  private static SpecValue tensor(List<Long> shape, String dtype) {
    List<SpecValue> dims = new ArrayList<>();
    for (long d : shape) {
      dims.add(new SpecValue(d, LOCATION));
    }
    Map<String, SpecValue> m = new LinkedHashMap<>();
    m.put("tensor", new SpecValue(dims, LOCATION));
    m.put("dtype", new SpecValue(dtype, LOCATION));
    return new SpecValue(m, LOCATION);
  }
}
