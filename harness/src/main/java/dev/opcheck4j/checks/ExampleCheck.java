package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;

/**
 * A check of one call: once per (op, device, example), and, when it says so, on the generated inputs
 * around each example.
 */
public non-sealed interface ExampleCheck extends Check {
  @Override
  default CheckInfo.Scope scope() {
    return CheckInfo.Scope.EXAMPLE;
  }

  /** Evaluates the check on {@code subject}'s op, device and example. Exceptions escaping here are harness errors. */
  Verdict evaluateExample(Subject subject) throws Exception;
}
