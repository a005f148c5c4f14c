package dev.opcheck4j.run;

import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.torch.Device;
import java.util.HashMap;
import java.util.Map;

/**
 * What the checks of one op gave so far, per check and device (the worst outcome over the device's
 * examples): what a check that requires another reads before it runs.
 */
public final class Prerequisites {
  private final Map<CheckOn, Outcome> seen = new HashMap<>();

  /** Adds an outcome of {@code check} on {@code device} (null: on none); the worse of two stays. */
  public void add(String check, Device device, Outcome outcome) {
    seen.merge(new CheckOn(check, device), outcome, Prerequisites::worse);
  }

  /** The worst outcome of {@code check} on {@code device} so far, or null when it gave none. */
  public Outcome of(String check, Device device) {
    return seen.get(new CheckOn(check, device));
  }

  /**
   * Why {@code check} cannot run on {@code device}: a check it requires did not pass there (or, for
   * one that runs on no device, at all); null when it can.
   */
  public String unmet(Check check, Device device) {
    for (String required : check.requires()) {
      Outcome o = seen.getOrDefault(new CheckOn(required, device), seen.get(new CheckOn(required, null)));
      if (o != null && o != Outcome.PASSED && o != Outcome.WARNING) {
        return "requires " + required + ", which " + o.label();
      }
    }
    return null;
  }

  /** Severity order: passed < warning < skipped < failed < errored. */
  private static Outcome worse(Outcome a, Outcome b) {
    return rank(a) >= rank(b) ? a : b;
  }

  private static int rank(Outcome o) {
    return switch (o) {
      // prerequisites read a check's own verdicts, before an expected-failures file judges them
      case PASSED, UNEXPECTED_PASS -> 0;
      case WARNING -> 1;
      case SKIPPED -> 2;
      case FAILED, EXPECTED_FAILURE -> 3;
      case ERRORED -> 4;
    };
  }
}
