package dev.opcheck4j.spec;

import java.util.Objects;

/**
 * A spec entry's {@code "variant_of"}: the variant family the op belongs to when its name does not say
 * so ({@code {"op": "ns::scale", "kind": "in-place"}}), or that it belongs to none although its name
 * looks like a member's ({@code {"none": "why"}}), as an OpInfo entry names its {@code inplace_variant}
 * or sets it to None.
 *
 * @param functional the functional member ({@code ns::foo}) the op is a variant of; empty when the op is
 *     declared no variant
 * @param inPlace whether the op is the in-place member (else the out= one); false when it is none
 * @param none why the op is no variant of the op its name points at; empty when it is one
 * @param location where the spec writes the {@code "variant_of"} object, {@code file:line:column}
 */
public record VariantOf(String functional, boolean inPlace, String none, String location) {
  /** The values {@code "kind"} may take: the in-place member, or the out= one. */
  public static final String IN_PLACE = "in-place";

  /** The out= member's {@code "kind"}. */
  public static final String OUT = "out";

  public VariantOf {
    Objects.requireNonNull(functional, "functional");
    Objects.requireNonNull(none, "none");
    Objects.requireNonNull(location, "location");
  }

  /** Whether the spec says the op is no variant at all ({@code {"none": "why"}}). */
  public boolean isNone() {
    return functional.isEmpty();
  }
}
