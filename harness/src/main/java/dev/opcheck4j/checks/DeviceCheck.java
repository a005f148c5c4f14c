package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;

/** A check of one op on one device, once per (op, device), over all its examples or none. */
public non-sealed interface DeviceCheck extends Check {
  @Override
  default CheckInfo.Scope scope() {
    return CheckInfo.Scope.DEVICE;
  }

  /** Evaluates the check on {@code subject}'s op and device. Exceptions escaping here are harness errors. */
  Verdict evaluateDevice(Subject subject) throws Exception;
}
