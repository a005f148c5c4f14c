package dev.opcheck4j.run;

import dev.opcheck4j.checks.Verdict;
import java.time.Duration;

/** Where the parent's units run: a supervised worker process, or (for measurement) this process. */
public interface Kernels extends AutoCloseable {
  /**
   * Runs one unit.
   *
   * @throws KernelDeath when the process running it died or missed {@code deadline}
   */
  Verdict run(Protocol.Unit unit, Duration deadline) throws KernelDeath;

  @Override
  void close();
}
