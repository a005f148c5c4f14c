package dev.opcheck4j.checks;

import dev.opcheck4j.spec.OpSpec;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * An op's tags as every check reads them: the ones its registration carries (read from the dispatcher,
 * {@code Operator.tags()}) and the ones its spec entry declares ({@code "tags"}), each with where it came
 * from. A spec declares a tag for a registration that cannot carry it on this runtime (the stable ABI of
 * libtorch 2.10 defines ops without tags; 2.12's {@code def(schema, tags)} carries them), so that a check
 * behaves as it will once the tag is registered, and every finding names the source.
 *
 * @param registered the tags the dispatcher reports for the op, sorted
 * @param declared the tags the spec entry declares, sorted
 * @param declaredIn the spec entry that declares them ({@code tags_ops.json#ops[2]}); empty when none does
 */
public record OpTags(List<String> registered, List<String> declared, String declaredIn) {
  public static final String NONDETERMINISTIC_SEEDED = "nondeterministic_seeded";
  public static final String DYNAMIC_OUTPUT_SHAPE = "dynamic_output_shape";
  public static final String DATA_DEPENDENT_OUTPUT = "data_dependent_output";
  public static final String INPLACE_VIEW = "inplace_view";
  public static final String PT2_COMPLIANT = "pt2_compliant_tag";

  /** No tags from either source. */
  public static final OpTags NONE = new OpTags(List.of(), List.of(), "");

  public OpTags {
    registered = List.copyOf(new TreeSet<>(registered));
    declared = List.copyOf(new TreeSet<>(declared));
  }

  /** The tags of an op whose registration carries {@code registered} and whose spec entry is {@code spec}. */
  public static OpTags of(List<String> registered, OpSpec spec) {
    return new OpTags(registered, spec.tags(), spec.tags().isEmpty() ? "" : spec.ref());
  }

  /** The tags of the subject's op (its spec entry's included). */
  public static OpTags of(Subject s) {
    return of(s.op().tags(), s.spec());
  }

  /** Whether either source gives the op {@code tag}. */
  public boolean has(String tag) {
    return registered.contains(tag) || declared.contains(tag);
  }

  /** Every tag of the op, from either source, sorted. */
  public List<String> names() {
    TreeSet<String> all = new TreeSet<>(registered);
    all.addAll(declared);
    return List.copyOf(all);
  }

  /** The first of {@code tags} the op has, in the order given. */
  public Optional<String> firstOf(String... tags) {
    for (String t : tags) {
      if (has(t)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  /**
   * Where {@code tag} comes from: {@code registered}, {@code declared in tags_ops.json#ops[2]}, or both;
   * empty text for a tag the op does not have.
   */
  public String source(String tag) {
    boolean reg = registered.contains(tag);
    boolean dec = declared.contains(tag);
    if (reg && dec) {
      return "registered, and declared in " + declaredIn;
    }
    return reg ? "registered" : dec ? "declared in " + declaredIn : "";
  }

  /** The tag with its source, as facts and reasons show it: {@code pt2_compliant_tag (registered)}. */
  public String describe(String tag) {
    return tag + " (" + source(tag) + ")";
  }
}
