package dev.opcheck4j.run.session;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.torch.Device;

/**
 * A check on one device of an op: what a prerequisite names, and what a cached entry must hold a
 * result for.
 *
 * @param check the check's id
 * @param device the device, or null for a check that runs on none (once per op, or per library)
 */
public record CheckOn(String check, Device device) {
  /** The device as results name it: its label, or {@link CheckResult#NONE}. */
  public String deviceLabel() {
    return device == null ? CheckResult.NONE : device.label();
  }

  /** Whether {@code r} is a result of this check on this device. */
  public boolean isOf(CheckResult r) {
    return r.check().equals(check) && r.device().equals(deviceLabel());
  }

  @Override
  public String toString() {
    return device == null ? check : check + " on " + device.label();
  }
}
