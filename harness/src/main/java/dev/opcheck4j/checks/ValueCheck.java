package dev.opcheck4j.checks;

import dev.opcheck4j.torch.Device;

/** A check that compares tensor values, so it runs on devices with data, never on meta. */
public abstract class ValueCheck extends CheckBase {
  protected ValueCheck(Declaration declared) {
    super(declared);
  }

  public boolean appliesTo(Device device) {
    return device != Device.META;
  }
}
