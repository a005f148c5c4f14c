package dev.opcheck4j.checks.gradcheck;

/** Why a gradient check cannot say anything about an example, or null when it can. */
final class Preconditions {
  private Preconditions() {}

  static String skipReason(GradFunction f) {
    if (!f.hasInputs()) {
      return "no floating-point input requires grad in this example (set \"requires_grad\": true)";
    }
    return null;
  }
}
