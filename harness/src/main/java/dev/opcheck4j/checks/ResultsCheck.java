package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;
import java.util.List;

/**
 * A check of an op's finished results: once per op, after every other result of the op, over what
 * they covered. It runs no kernel.
 */
public non-sealed interface ResultsCheck extends Check {
  @Override
  default CheckInfo.Scope scope() {
    return CheckInfo.Scope.RESULTS;
  }

  /**
   * What the check says of {@code done}'s op, one verdict per device it names; empty when nothing is
   * asked of this op (then it has no result).
   */
  List<DeviceVerdict> judge(FinishedOp done);

  /**
   * A verdict about one device.
   *
   * @param device the device, or null for a verdict about no device
   * @param verdict the verdict
   */
  record DeviceVerdict(String device, Verdict verdict) {}
}
