package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.Coverage;
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
   * What the check says of {@code op}, one verdict per device it names; empty when nothing is asked
   * of this op (then it has no result).
   *
   * @param op the op
   * @param coverage the coverage of the op's other results
   * @param required the check families the run and the op's spec require, in order; never null
   */
  List<DeviceVerdict> judge(String op, Coverage coverage, List<String> required);

  /**
   * A verdict about one device.
   *
   * @param device the device, or null for a verdict about no device
   * @param verdict the verdict
   */
  record DeviceVerdict(String device, Verdict verdict) {}
}
