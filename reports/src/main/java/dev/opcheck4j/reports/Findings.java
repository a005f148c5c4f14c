package dev.opcheck4j.reports;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.RunReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The results a reader must look at (crashed, errored, failed, warning), once per (op or library,
 * check) with the devices it happened on, in the order they were produced.
 *
 * @param subject the op, or the library for a library-scope result
 * @param check the check id
 * @param first the first result of the group (its facts are shown)
 * @param devices the devices the group happened on, in order (empty for device-less checks)
 * @param count how many results the group holds
 */
record Findings(String subject, String check, CheckResult first, Set<String> devices, int count) {

  static List<Findings> of(RunReport report) {
    Map<String, List<CheckResult>> groups = new LinkedHashMap<>();
    for (CheckResult r : report.results()) {
      if (Outcomes.needsAttention(r)) {
        groups.computeIfAbsent(Outcomes.subject(r) + "\u0000" + r.check() + "\u0000" + Outcomes.kind(r),
            k -> new ArrayList<>()).add(r);
      }
    }
    List<Findings> list = new ArrayList<>();
    for (List<CheckResult> g : groups.values()) {
      Set<String> devices = new LinkedHashSet<>();
      for (CheckResult r : g) {
        if (r.deviceOrNull() != null) {
          devices.add(r.device());
        }
      }
      CheckResult first = g.get(0);
      list.add(new Findings(Outcomes.subject(first), first.check(), first, devices, g.size()));
    }
    return list;
  }

  Outcomes.Kind kind() {
    return Outcomes.kind(first);
  }
}
