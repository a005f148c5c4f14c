package dev.opcheck4j.run.property;

import dev.opcheck4j.spec.Example;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What generation learns about sizes, per example: a kernel that rejected most tries whose sizes were
 * drawn untied (at least {@link #EVIDENCE} of them), and at most half as often tied ones, needs sizes
 * that match (a binary op's operands, a matmul's inner sizes; the untied ones it accepted happened to
 * match or broadcast). Its later tries draw tied sizes only, so they test the op instead of being
 * discarded, and the coverage says from which try on. Pure: it is told what the tries gave.
 */
final class TiedSizes {
  /** Untied tries, all rejected, before sizes are tied. */
  static final int EVIDENCE = 2;

  /** What the tries of one example showed so far. */
  private static final class Seen {
    int untied;
    int untiedRejected;
    int tied;
    int tiedRejected;
    String firstRejection;
    boolean learned;
  }

  private final Map<Example, Seen> seen = new LinkedHashMap<>();
  private final List<String> lines = new ArrayList<>();

  /** Try {@code g} drew untied sizes or not, and the kernel rejected it with {@code rejected} (null: accepted). */
  void saw(Tries.Generated g, String rejected) {
    Seen s = seen.computeIfAbsent(g.gen().origin(), k -> new Seen());
    if (g.gen().drewUntied(g.sequence())) {
      s.untied++;
      if (rejected != null) {
        s.untiedRejected++;
        if (s.firstRejection == null) {
          s.firstRejection = rejected;
        }
      }
    } else {
      s.tied++;
      if (rejected != null) {
        s.tiedRejected++;
      }
    }
  }

  /**
   * The examples whose sizes are found to need tying since the last call, each said in a coverage
   * line; {@code next} is the first try that will draw tied sizes.
   */
  List<Example> learned(int next) {
    List<Example> out = new ArrayList<>();
    for (Map.Entry<Example, Seen> e : seen.entrySet()) {
      Seen s = e.getValue();
      // rejected: untied more than half the time, tied at most half as often as untied (and not always)
      if (!s.learned && s.untiedRejected >= EVIDENCE && s.untiedRejected * 2 > s.untied && s.tiedRejected < s.tied
          && (long) s.tiedRejected * s.untied * 2 <= (long) s.untiedRejected * s.tied) {
        s.learned = true;
        out.add(e.getKey());
        lines.add("sizes that match: the kernel rejected " + s.untiedRejected + " of " + s.untied + " tries of "
            + e.getKey().ref() + " with untied sizes (\"" + s.firstRejection + "\") and " + s.tiedRejected + " of "
            + s.tied + " with tied ones, so its tries from try " + next + " on draw tied sizes");
      }
    }
    return out;
  }

  /** The coverage lines of what was learned. */
  List<String> lines() {
    return lines;
  }
}
