package dev.opcheck4j.run.session;

import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.SupervisorCheck;
import dev.opcheck4j.torch.Device;
import java.util.HashMap;
import java.util.Map;

/**
 * What the checks of one op gave so far, per check and device (the worst outcome over the device's
 * examples): what a check that requires another reads before it runs.
 */
public final class Prerequisites {
  private final Map<CheckOn, Outcome> seen = new HashMap<>();
  /**
   * Per check and device whose skips were all by design, the words that say so ({@link Coverage#SPEC_SKIP}
   * or {@link Coverage#NOT_APPLICABLE}); "" once one was not. A check that requires it is then skipped by
   * design too, so coverage does not count its family as never run where the spec says why.
   */
  private final Map<CheckOn, String> skipsByDesign = new HashMap<>();
  /** Per check and device that failed, whether every failure was a crash of the worker in its unit. */
  private final Map<CheckOn, Boolean> failedByCrashes = new HashMap<>();

  /** Adds an outcome of {@code check} on {@code device} (null: on none); the worse of two stays. */
  public void add(String check, Device device, Outcome outcome) {
    add(check, device, outcome, null);
  }

  /** The same, with the reason of a skip ({@code reason}, null for other outcomes). */
  public void add(String check, Device device, Outcome outcome, String reason) {
    CheckOn on = new CheckOn(check, device);
    seen.merge(on, outcome, Prerequisites::worse);
    if (outcome == Outcome.FAILED) {
      failedByCrashes.put(on, false);
    }
    if (outcome == Outcome.SKIPPED) {
      String design = reason == null ? ""
          : reason.startsWith(Coverage.SPEC_SKIP) ? Coverage.SPEC_SKIP
          : reason.startsWith(Coverage.NOT_APPLICABLE) ? Coverage.NOT_APPLICABLE : "";
      skipsByDesign.merge(on, design, (a, b) -> a.equals(b) ? a : "");
    }
  }

  /** {@code check}'s unit on {@code device} killed the worker ({@code crash}: with a crash, not a hang): it failed. */
  public void died(String check, Device device, boolean crash) {
    CheckOn on = new CheckOn(check, device);
    seen.merge(on, Outcome.FAILED, Prerequisites::worse);
    failedByCrashes.merge(on, crash, Boolean::logicalAnd);
  }

  /**
   * Whether {@code check} runs on {@code device} only to diagnose a crash: a check it requires failed there by
   * crashes alone, which it diagnoses ({@link SupervisorCheck#diagnosesCrashes}).
   */
  public boolean diagnosing(Check check, Device device) {
    return check instanceof SupervisorCheck s && s.diagnosesCrashes() && check.requires().stream()
        .anyMatch(r -> failedByCrashes.getOrDefault(new CheckOn(r, device), false));
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
      boolean diagnosed = o == Outcome.FAILED && check instanceof SupervisorCheck s && s.diagnosesCrashes()
          && failedByCrashes.getOrDefault(new CheckOn(required, device), false);
      if (o != null && !o.passes() && !diagnosed) {
        CheckOn on = seen.containsKey(new CheckOn(required, device)) ? new CheckOn(required, device)
            : new CheckOn(required, null);
        String design = o == Outcome.SKIPPED ? skipsByDesign.getOrDefault(on, "") : "";
        return design + "requires " + required + ", which " + o.label();
      }
    }
    return null;
  }

  /** Severity order: passed < note < warning < skipped < failed < errored. */
  private static Outcome worse(Outcome a, Outcome b) {
    return rank(a) >= rank(b) ? a : b;
  }

  private static int rank(Outcome o) {
    return switch (o) {
      // prerequisites read a check's own verdicts, before an expected-failures file judges them
      case PASSED, UNEXPECTED_PASS -> 0;
      case NOTE -> 1;
      case WARNING -> 2;
      case SKIPPED -> 3;
      case FAILED, EXPECTED_FAILURE -> 4;
      case ERRORED -> 5;
    };
  }
}
