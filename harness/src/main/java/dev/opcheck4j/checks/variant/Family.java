package dev.opcheck4j.checks.variant;

import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.VariantOf;
import java.util.Optional;

/**
 * An op's place in a variant family, read from its name as PyTorch names its own variants: {@code
 * ns::foo_} is the in-place variant of {@code ns::foo}; {@code ns::foo.out} and {@code ns::foo_out} are
 * its out= variants.
 *
 * @param functional the functional member, {@code ns::foo}
 * @param inPlace whether the op is the in-place member (else the out= one)
 */
record Family(String functional, boolean inPlace) {
  /**
   * The family of {@code spec}'s op: the one its {@code "variant_of"} names, else the one its name says;
   * none when the spec declares the op no variant ({@code {"none": "why"}}).
   */
  static Optional<Family> of(OpSpec spec) {
    Optional<VariantOf> named = spec.variantOf();
    if (named.isPresent()) {
      return named.get().isNone() ? Optional.empty()
          : Optional.of(new Family(named.get().functional(), named.get().inPlace()));
    }
    return of(spec.op());
  }

  /** The family {@code op} ({@code ns::name} or {@code ns::name.overload}) is a non-functional member of, if its name says so. */
  static Optional<Family> of(String op) {
    int dot = op.indexOf('.', op.indexOf("::") + 2);
    String name = dot < 0 ? op : op.substring(0, dot);
    String overload = dot < 0 ? "" : op.substring(dot + 1);
    String base = name.substring(name.indexOf("::") + 2);
    if (overload.equals("out")) {
      return Optional.of(new Family(name, false));
    }
    if (!overload.isEmpty() || base.startsWith("_")) {
      return Optional.empty();
    }
    if (base.endsWith("_out") && base.length() > "_out".length()) {
      return Optional.of(new Family(name.substring(0, name.length() - "_out".length()), false));
    }
    if (base.endsWith("_") && !base.endsWith("__")) {
      return Optional.of(new Family(name.substring(0, name.length() - 1), true));
    }
    return Optional.empty();
  }

  /** What the member is called in facts: {@code in-place} or {@code out=}. */
  String kind() {
    return inPlace ? "in-place" : "out=";
  }
}
