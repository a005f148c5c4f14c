package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;

/**
 * A check that judges what the generated inputs of one (op, device) showed as a whole, once they
 * have all been tried, rather than one call.
 */
public non-sealed interface GenerationCheck extends Check {
  @Override
  default CheckInfo.Scope scope() {
    return CheckInfo.Scope.GENERATED;
  }

  Verdict judge(Subject subject, GenerationStats stats);
}
