package dev.opcheck4j.run.property;

import dev.opcheck4j.run.worker.KernelDeath;

/**
 * A call of the phase that killed the worker, carried through the judges the shrinker calls: the
 * check whose call it was, or null for the kernel call of a try or probe.
 */
final class Died extends RuntimeException {
  final transient KernelDeath death;
  final String check;

  Died(KernelDeath death, String check) {
    super(death.getMessage(), null, false, false);
    this.death = death;
    this.check = check;
  }
}
