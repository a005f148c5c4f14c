package dev.opcheck4j.checks.memory;

import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.torch.Device;

/**
 * A memory check: what it controls (guard pages, the CPU allocator's fill, the bytes of a bool) is
 * host memory, so it runs on cpu.
 */
abstract class HostMemoryCheck extends ValueCheck {
  HostMemoryCheck(Declaration declared) {
    super(declared);
  }

  @Override
  public boolean appliesTo(Device device) {
    return device == Device.CPU;
  }
}
