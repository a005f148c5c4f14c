package dev.opcheck4j.run.property;

import dev.opcheck4j.run.link.Kernels;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whose time each kernel call of the phase was: each check's own calls, and the kernel calls of the
 * tries and probes ({@link #PROBES}), which the generate-scope results report. Each result's duration
 * is read from here.
 */
final class TimeLedger {
  /** The key of the time spent in the kernel calls of tries and probes. */
  static final String PROBES = "";

  private final Map<String, Long> nanos = new HashMap<>();

  /** Adds the time since {@code t0} ({@link System#nanoTime}) to {@code key}. */
  void since(String key, long t0) {
    nanos.merge(key, System.nanoTime() - t0, Long::sum);
  }

  /** A finished unit's own time, and whose it was (a check's id, or {@link #PROBES}). */
  record Spent(String key, long micros) {}

  /**
   * Adds each finished unit's own time to its key and, when the worker died in a unit of {@code
   * inFlight} (null: it did not), what is left of the exchange since {@code t0} to that one.
   */
  void account(List<Spent> spent, String inFlight, long t0) {
    long own = 0;
    for (Spent s : spent) {
      long ns = s.micros() * 1_000;
      own += ns;
      nanos.merge(s.key(), ns, Long::sum);
    }
    if (inFlight != null) {
      nanos.merge(inFlight, Math.max(0, System.nanoTime() - t0 - own), Long::sum);
    }
  }

  long micros(String key) {
    return nanos.getOrDefault(key, 0L) / 1_000;
  }

  /**
   * The shrink of a finding of {@code check}: once closed, its whole span is the check's time, and the
   * kernel calls counted on the way (its own, and the tries') are not counted twice.
   */
  Shrink shrinking(String check) {
    return new Shrink(nanos, check, System.nanoTime(), nanos.getOrDefault(PROBES, 0L), nanos.getOrDefault(check, 0L));
  }

  /** An open shrink of {@link #shrinking}: the ledger's times as they were when it began, and when. */
  record Shrink(Map<String, Long> nanos, String check, long t0, long probesBefore, long checkBefore)
      implements AutoCloseable {
    @Override
    public void close() {
      nanos.put(PROBES, probesBefore);
      nanos.put(check, checkBefore + System.nanoTime() - t0);
    }
  }
}
