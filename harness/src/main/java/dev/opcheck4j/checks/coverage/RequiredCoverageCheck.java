package dev.opcheck4j.checks.coverage;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ResultsCheck;
import dev.opcheck4j.checks.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * A family the run requires ({@code --require}, the spec's {@code "require"}) ran on at least one input
 * of the op on every device where it applies: a gate that passes what it never ran is worse than none.
 */
public final class RequiredCoverageCheck extends CheckBase implements ResultsCheck {
  public static final String ID = "coverage.required";

  public RequiredCoverageCheck() {
    super(Declaration.error(ID, "every required check family ran on at least one input of the op on each device"));
  }

  @Override
  public List<DeviceVerdict> judge(dev.opcheck4j.checks.FinishedOp done) {
    return judge(done.op(), done.coverage(), done.required());
  }

  /** The verdicts on {@code op}, given the coverage of its results and the families required of it. */
  public List<DeviceVerdict> judge(String op, Coverage coverage, List<String> required) {
    List<DeviceVerdict> verdicts = new ArrayList<>();
    for (String family : required) {
      List<Coverage.Entry> entries = coverage.of(op).stream().filter(e -> e.family().equals(family)).toList();
      if (entries.isEmpty()) {
        verdicts.add(new DeviceVerdict(null, never(family, "-", "no check of the family ran on this op: none was"
            + " selected (--check), or none applies to it")));
      }
      for (Coverage.Entry e : entries) {
        verdicts.add(new DeviceVerdict(e.device(), e.ran()
            ? Verdict.passed(Fact.of("family", family), Fact.of("ran on", e.describe()))
            : never(family, e.deviceLabel(), e.reason())));
      }
    }
    return verdicts;
  }

  private static Verdict never(String family, String device, String reason) {
    return Verdict.failed(Finding.of(
        "'" + family + "' runs on at least one input of the op on " + device + " (it is required)",
        "'" + family + "' never ran: " + reason,
        "give the op an input the family can run on (the reason says what is missing), or drop '" + family
            + "' from --require / the spec's \"require\"",
        new Cause.Contract("required family never ran", family + " on " + device))
        .with(Fact.of("family", family), Fact.of("reason", reason)));
  }
}
