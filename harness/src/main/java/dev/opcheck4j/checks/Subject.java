package dev.opcheck4j.checks;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.Operator;

/**
 * What a check looks at.
 *
 * @param library the library under test
 * @param op the operator (null for library-scope checks)
 * @param spec the op's spec entry: tolerances, skips; never null (an empty spec when none was given)
 * @param device the device under test (null for library- and op-scope checks)
 * @param example the example (null unless the check is example-scoped)
 * @param seed the run's seed, for checks that draw random values
 * @param recorded what a baseline recorded the op giving on this example ({@code check --baseline}), or
 *     null when none did
 */
public record Subject(
    OpLibrary library, Operator op, OpSpec spec, Device device, Example example, long seed,
    dev.opcheck4j.torch.ValueBaseline.Recorded recorded) {

  /**
   * The most dimensions a tensor may have for libtorch's functions over lists of dimensions (reductions,
   * comparisons, {@code allclose}): {@code at::dim_bitset_size} (ATen/WrapDimUtilsMulti.h), 64 in every
   * release this harness runs on. Past it they raise "only tensors with up to 64 dims are supported".
   */
  public static final int MAX_DIMS = 64;

  /** A subject with nothing recorded by a baseline. */
  public Subject(OpLibrary library, Operator op, OpSpec spec, Device device, Example example, long seed) {
    this(library, op, spec, device, example, seed, null);
  }

  /**
   * Why a check that raised on this subject's example is Skipped rather than a harness error: a tensor of the
   * example has more dimensions than {@link #MAX_DIMS}, which libtorch's own functions over dimensions refuse;
   * empty when none has (or there is no example).
   */
  public java.util.Optional<String> pastDimensionLimit() {
    if (example == null) {
      return java.util.Optional.empty();
    }
    java.util.List<String> names = op == null ? java.util.List.of()
        : op.schema().arguments().stream().map(a -> a.name()).toList();
    java.util.Map<String, dev.opcheck4j.spec.SpecValue> values = new java.util.LinkedHashMap<>();
    for (int i = 0; i < example.args().size(); i++) {
      values.put(i < names.size() ? names.get(i) : "argument " + i, example.args().get(i));
    }
    values.putAll(example.kwargs());
    for (var e : values.entrySet()) {
      java.util.List<dev.opcheck4j.spec.SpecValue> tensors = e.getValue().isList() ? e.getValue().list()
          : java.util.List.of(e.getValue());
      for (dev.opcheck4j.spec.SpecValue t : tensors) {
        if (t.isObject() && t.object().get("tensor") != null && t.object().get("tensor").isList()
            && t.object().get("tensor").list().size() > MAX_DIMS) {
          return java.util.Optional.of("argument '" + e.getKey() + "' has " + t.object().get("tensor").list().size()
              + " dimensions, past the " + MAX_DIMS + " that libtorch's functions over dimensions support"
              + " (at::dim_bitset_size), and this check needs them");
        }
      }
    }
    return java.util.Optional.empty();
  }
}
