package dev.opcheck4j.checks;

import dev.opcheck4j.torch.Device;

/** A check that compares tensor values, so it runs on devices with data, never on meta. */
public interface ValueCheck extends Check {
  @Override
  default boolean appliesTo(Device device) {
    return device != Device.META;
  }
}
