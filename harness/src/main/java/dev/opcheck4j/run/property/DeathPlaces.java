package dev.opcheck4j.run.property;

import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the deaths that stop an op's generation on a device were: before it (its example checks, an earlier
 * device), in the probes of its domain and sizes, and on which generated inputs. A stop says them, so that its
 * reader knows what to look at. Pure: it is told the op's count of deaths as generation goes.
 */
final class DeathPlaces {
  private final Device device;
  private final int before;
  private int afterProbes;
  private final List<String> tries = new ArrayList<>();

  /** @param before the op's deaths when generation on {@code device} starts */
  DeathPlaces(Device device, int before) {
    this.device = device;
    this.before = before;
    this.afterProbes = before;
  }

  /** The probes are done, and the op has killed its worker {@code deaths} times so far. */
  void probed(int deaths) {
    afterProbes = deaths;
  }

  /** The generated input {@code label} killed the worker. */
  void killedOn(String label) {
    tries.add(label);
  }

  /** Why generation stopped: the op killed its worker {@code deaths} times, and where. */
  String why(int deaths) {
    List<String> where = new ArrayList<>();
    if (before > 0) {
      where.add(before + " before generation on " + device.label() + " (in its example checks, or on an earlier device)");
    }
    if (afterProbes > before) {
      where.add((afterProbes - before) + " in probes of its domain and sizes");
    }
    if (!tries.isEmpty()) {
      where.add(tries.size() + " on generated inputs (" + String.join(", ", tries) + ")");
    }
    return "the op killed its worker " + deaths + " times" + (where.isEmpty() ? "" : ": " + String.join("; ", where))
        + " (see " + BuiltinChecks.supervisors() + ")";
  }
}
