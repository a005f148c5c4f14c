package dev.opcheck4j.checks.coverage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.ResultsCheck;
import java.util.List;
import org.junit.jupiter.api.Test;

/** coverage.required on an op's coverage: a known-good op passes it, a known-bad one fails exactly it. */
class RequiredCoverageCheckTests {
  private static final String REASON = "no floating-point input requires grad in this example";
  private final RequiredCoverageCheck check = (RequiredCoverageCheck) BuiltinChecks.byId(RequiredCoverageCheck.ID).orElseThrow();

  private static Coverage coverage() {
    return Coverage.of(List.of(
        new CheckResult("ns::good", "gradcheck.jacobian", "cpu", "e0", Outcome.PASSED, List.of(), 0),
        new CheckResult("ns::good", "gradcheck.jacobian", "meta", "e0", Outcome.PASSED, List.of(), 0),
        new CheckResult("ns::bad", "gradcheck.jacobian", "cpu", "e0", Outcome.SKIPPED, List.of(Fact.of("reason", REASON)), 0),
        new CheckResult("ns::bad", "kernel.error", "cpu", "e0", Outcome.PASSED, List.of(), 0)), 0);
  }

  private static List<String> judged(List<ResultsCheck.DeviceVerdict> verdicts) {
    return verdicts.stream().map(v -> v.device() + " " + v.verdict().outcome()
        + (v.verdict().finding() == null ? "" : " " + v.verdict().finding().actual())).toList();
  }

  @Test
  void aKnownGoodOpPassesOnEveryDevice() {
    assertEquals(List.of("cpu PASSED", "meta PASSED"), judged(check.judge("ns::good", coverage(), List.of("gradcheck"))));
  }

  @Test
  void aKnownBadOpFailsNamingFamilyDeviceAndReason() {
    List<ResultsCheck.DeviceVerdict> v = check.judge("ns::bad", coverage(), List.of("gradcheck", "kernel"));
    assertEquals(List.of("cpu FAILED 'gradcheck' never ran: " + REASON, "cpu PASSED"), judged(v));
    assertEquals(List.of("family", "reason"),
        v.get(0).verdict().finding().details().stream().map(Fact::key).toList());
    assertEquals(RequiredCoverageCheck.ID, check.id());
  }

  @Test
  void aFamilyWithNoResultOnTheOpFailsAndNothingRequiredGivesNoResult() {
    assertEquals(List.of("null FAILED 'fake' never ran: no check of the family ran on this op: none was selected"
        + " (--check), or none applies to it"), judged(check.judge("ns::bad", coverage(), List.of("fake"))));
    assertEquals(List.of(), check.judge("ns::bad", coverage(), List.of()));
  }
}
