package dev.opcheck4j.torch;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The functions of libtorch's stable C ABI that came after 2.10, by the release that added them: each is
 * declared in {@code torch/csrc/stable/c/shim.h} under {@code #if TORCH_FEATURE_VERSION >= TORCH_VERSION_2_N_0}
 * (the torch 2.13.0 wheel's headers; {@code StableShimsTests} reads them again and fails when they differ). A
 * library that calls one needs that libtorch or a later one, whatever {@code TORCH_TARGET_VERSION} it says.
 */
public final class StableShims {
  private static final Map<String, String> ADDED_IN = Map.ofEntries(
      Map.entry("torch_dtype_float4_e2m1fn_x2", "2.11"),
      Map.entry("torch_dtype_float8_e8m0fnu", "2.11"),
      Map.entry("torch_from_blob", "2.11"),
      Map.entry("torch_library_def_with_tags", "2.12"),
      Map.entry("torch_tag_core", "2.12"),
      Map.entry("torch_tag_cudagraph_unsafe", "2.12"),
      Map.entry("torch_tag_data_dependent_output", "2.12"),
      Map.entry("torch_tag_dynamic_output_shape", "2.12"),
      Map.entry("torch_tag_flexible_layout", "2.12"),
      Map.entry("torch_tag_generated", "2.12"),
      Map.entry("torch_tag_inplace_view", "2.12"),
      Map.entry("torch_tag_maybe_aliasing_or_mutating", "2.12"),
      Map.entry("torch_tag_needs_contiguous_strides", "2.12"),
      Map.entry("torch_tag_needs_exact_strides", "2.12"),
      Map.entry("torch_tag_needs_fixed_stride_order", "2.12"),
      Map.entry("torch_tag_nondeterministic_bitwise", "2.12"),
      Map.entry("torch_tag_nondeterministic_seeded", "2.12"),
      Map.entry("torch_tag_out_variant", "2.12"),
      Map.entry("torch_tag_pointwise", "2.12"),
      Map.entry("torch_tag_pt2_compliant_tag", "2.12"),
      Map.entry("torch_tag_reduction", "2.12"),
      Map.entry("torch_tag_view_copy", "2.12"),
      Map.entry("torch_delete_generator", "2.13"),
      Map.entry("torch_delete_stable_ivalue", "2.13"),
      Map.entry("torch_exception_get_what", "2.13"),
      Map.entry("torch_exception_get_what_without_backtrace", "2.13"),
      Map.entry("torch_generator_get_device", "2.13"),
      Map.entry("torch_library_set_python_module", "2.13"),
      Map.entry("torch_new_generator_handle", "2.13"),
      Map.entry("torch_new_stable_ivalue", "2.13"),
      Map.entry("torch_stream_native_handle", "2.13"));

  private StableShims() {}

  /** The release ({@code 2.11}) that added {@code function} to the stable C ABI, if it is one this table knows. */
  public static Optional<String> addedIn(String function) {
    return Optional.ofNullable(ADDED_IN.get(function));
  }

  /** Every function of the table with its release, for the test that reads the headers again. */
  static Map<String, String> all() {
    return ADDED_IN;
  }

  /**
   * What {@code functions} (those a library calls that a libtorch lacks) need, as one line:
   * {@code needs libtorch ≥ 2.13: uses torch_exception_get_what, torch_from_blob (2.11)}; empty when one of
   * them is not in the table (a release after the headers', or not a stable function).
   */
  public static Optional<String> needs(List<String> functions) {
    if (functions.isEmpty() || !functions.stream().allMatch(ADDED_IN::containsKey)) {
      return Optional.empty();
    }
    Comparator<String> byRelease = Comparator.comparing((String f) -> ADDED_IN.get(f),
        Comparator.comparingInt(StableShims::minor)).reversed().thenComparing(f -> f);
    List<String> sorted = functions.stream().distinct().sorted(byRelease).toList();
    String newest = ADDED_IN.get(sorted.get(0));
    List<String> named = sorted.stream().map(f -> ADDED_IN.get(f).equals(newest) ? f : f + " (" + ADDED_IN.get(f) + ")")
        .toList();
    return Optional.of("needs libtorch \u2265 " + newest + ": uses " + String.join(", ", named));
  }

  private static int minor(String release) {
    return Integer.parseInt(release.substring(release.indexOf('.') + 1));
  }
}
