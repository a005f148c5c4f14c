package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.UnknownOpException;
import java.util.Optional;

/** A check of one op, once per op, on no device and no example. */
public non-sealed interface OpCheck extends Check {
  @Override
  default CheckInfo.Scope scope() {
    return CheckInfo.Scope.OP;
  }

  /** Evaluates the check on {@code subject}'s op. Exceptions escaping here are harness errors. */
  Verdict evaluateOp(Subject subject) throws Exception;

  /**
   * What this check says about an op name the library does not register ({@code unknown} says which,
   * with the nearest names), or empty when it says nothing: the op cannot be evaluated.
   */
  default Optional<Verdict> onUnknownOp(UnknownOpException unknown, String library) {
    return Optional.empty();
  }

  /**
   * Whether this check needs an example synthesized from the op's schema for {@code spec} (it gives
   * none): the runner then looks for one before any check runs.
   */
  default boolean wantsSynthesizedExample(OpSpec spec) {
    return false;
  }
}
