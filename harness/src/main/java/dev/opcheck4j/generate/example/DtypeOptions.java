package dev.opcheck4j.generate.example;

import dev.opcheck4j.spec.Domain;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The dtypes an example's tensors may take in its variants: the spec's {@code vary.dtype} list; otherwise, for
 * a floating-point example, its family (float32, float64) and beyond it half precision, bool and the integer
 * types; every one within the declared domain and without those the kernel was found to reject. Pure.
 */
public final class DtypeOptions {
  /**
   * Dtypes drawn beyond a floating-point example's family when the spec has no {@code vary.dtype}:
   * half precision, bool and the integer types (complex is not drawn: the value checks compare real
   * parts only).
   */
  public static final List<String> OTHER_DTYPES = List.of("float16", "bfloat16", "bool", "uint8", "int8", "int16", "int32", "int64");

  private final Vary vary;
  private final Domain domain;
  private final Set<String> rejected;
  /** Every dtype of the example's tensors. */
  private final TreeSet<String> seen = new TreeSet<>();
  /** Whether the example has a floating-point tensor ({@link Domain#takesDeclaredDtypes}). */
  private final boolean anyFloating;
  /** The example's dtypes a variant draws anew: those with a choice to make. */
  private final List<String> drawn;

  /**
   * @param rejected dtypes the kernel was found to reject
   */
  public DtypeOptions(ExampleArgs args, Vary vary, Domain domain, Set<String> rejected) {
    this.vary = vary;
    this.domain = domain;
    this.rejected = Set.copyOf(rejected);
    for (SpecValue v : args.values()) {
      collect(v, seen);
    }
    this.anyFloating = seen.stream().anyMatch(Domain::floating);
    this.drawn = seen.stream().filter(d -> candidates(d).size() >= 2).toList();
  }

  /** The example's dtypes a variant draws anew (one choice each, so tensors that shared a dtype still do), in order. */
  public List<String> drawn() {
    return drawn;
  }

  /**
   * The dtypes a tensor of dtype {@code d} may take; the first is the simplest (its own, when allowed).
   * The spec's {@code vary.dtype} list when it gives one. Otherwise a floating-point example's family
   * (float32 and float64) first, then {@link #OTHER_DTYPES}: every one is probed by domain discovery,
   * and those the kernel rejects with an error are left out, so generation covers every dtype the
   * kernel accepts. A non-floating example dtype (an index tensor) is kept, unless the declared dtypes
   * are about it ({@link Domain#takesDeclaredDtypes}). Every declared dtype a tensor may take is among them.
   */
  public List<String> candidates(String d) {
    List<String> base;
    if (!vary.dtypes().isEmpty()) {
      base = vary.dtypes();
    } else {
      base = new ArrayList<>(switch (d) {
        case "float32" -> List.of("float32", "float64");
        case "float64" -> List.of("float64", "float32");
        default -> List.of(d);
      });
      if (Domain.floating(d)) {
        OTHER_DTYPES.stream().filter(x -> !base.contains(x)).forEach(base::add);
      }
      if (Domain.takesDeclaredDtypes(d, anyFloating)) {
        // every declared dtype is tried, an integer op's other integer and bool dtypes too
        domain.dtypes().stream().filter(x -> !base.contains(x)).forEach(base::add);
      }
    }
    List<String> out = new ArrayList<>();
    for (String x : base) {
      if (domain.allowsDtype(x) && !rejected.contains(x)) {
        out.add(x);
      }
    }
    return out.isEmpty() ? List.of(d) : out;
  }

  /**
   * How many of {@code options} (the candidates of a dtype) are its family, drawn three tries in four: the
   * spec's own list is all family; otherwise the floating-point dtypes before the first other one.
   */
  public int familySize(List<String> options) {
    if (!vary.dtypes().isEmpty()) {
      return options.size();
    }
    int n = 0;
    while (n < options.size() && !OTHER_DTYPES.contains(options.get(n))) {
      n++;
    }
    return Math.max(n, 1);
  }

  /** Whether {@code dtype} is drawn from beyond the example's family ({@link #OTHER_DTYPES}, no {@code vary.dtype}). */
  public boolean beyondFamily(String dtype) {
    return vary.dtypes().isEmpty() && OTHER_DTYPES.contains(dtype) && drawn.stream().noneMatch(dtype::equals);
  }

  /** Dtypes the example's tensors may take other than their own, per dtype of the example. */
  public Map<String, List<String>> others() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (String d : seen) {
      List<String> others = new ArrayList<>(candidates(d));
      others.remove(d);
      if (!others.isEmpty()) {
        out.put(d, others);
      }
    }
    return out;
  }

  /**
   * Where the example's tensors could take dtypes that differ: each tensor label but the first of those
   * sharing a dtype, with the other dtypes it could take (the schema ties no two tensors' dtypes; the
   * kernel may).
   */
  public Map<String, List<String>> mixable(ExampleArgs args) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    Set<String> firstOf = new HashSet<>();
    List<String> names = args.names();
    List<SpecValue> values = args.values();
    for (int i = 0; i < values.size(); i++) {
      ExampleArgs.rewrite(values.get(i), names.get(i), (v, label) -> {
        String d = ExampleArgs.dtypeOf(v.object());
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

  private static void collect(SpecValue v, TreeSet<String> into) {
    if (ExampleArgs.isTensor(v)) {
      into.add(ExampleArgs.dtypeOf(v.object()));
    } else if (v.isList()) {
      for (SpecValue e : v.list()) {
        collect(e, into);
      }
    }
  }
}
