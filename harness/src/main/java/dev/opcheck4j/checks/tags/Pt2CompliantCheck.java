package dev.opcheck4j.checks.tags;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.Severity;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.FinishedOp;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.ResultsCheck;
import dev.opcheck4j.checks.Verdict;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * An op tagged {@code pt2_compliant_tag} passes every check that stands for one of opcheck's tests
 * (the registry's {@code opcheckCounterparts}, given to the constructor): PyTorch's generate_opcheck_tests adds a test per op
 * (test_pt2_compliant_tag) that fails when an op carries the tag and fails any of its opcheck tests, as
 * "tagged with torch.Tag.pt2_compliant_tag but it failed some of the generated opcheck tests". One extra
 * finding, naming the checks that failed; they keep their own results.
 */
public final class Pt2CompliantCheck extends CheckBase implements ResultsCheck {
  public static final String ID = "tags.pt2-compliant";

  /** The checks that stand for opcheck's tests, asked for when an op is judged: the registry that holds this check names them. */
  private final Supplier<List<Check>> counterparts;

  public Pt2CompliantCheck(Supplier<List<Check>> counterparts) {
    super(Declaration.error(ID, "an op tagged pt2_compliant_tag passes every opcheck-equivalent check"));
    this.counterparts = counterparts;
  }

  @Override
  public boolean appliesTo(OpTags tags) {
    return tags.has(OpTags.PT2_COMPLIANT);
  }

  @Override
  public List<DeviceVerdict> judge(FinishedOp done) {
    if (!appliesTo(done.tags())) {
      return List.of();
    }
    Set<String> counterparts = this.counterparts.get().stream()
        .filter(c -> c.severity() == Severity.ERROR).map(Check::id).collect(Collectors.toSet());
    // per failing check, the devices it failed on, in the order the results came
    Map<String, Set<String>> failed = new LinkedHashMap<>();
    int judged = 0;
    for (CheckResult r : done.results()) {
      if (!counterparts.contains(r.check()) || r.outcome() == Outcome.SKIPPED) {
        // a skipped counterpart earned the tag nothing: only what ran is judged
        continue;
      }
      judged++;
      if (r.outcome() == Outcome.FAILED) {
        failed.computeIfAbsent(r.check(), k -> new java.util.LinkedHashSet<>()).add(
            r.deviceOrNull() == null ? "the op" : r.deviceOrNull());
      }
    }
    String tag = done.tags().describe(OpTags.PT2_COMPLIANT);
    String families = String.join(", ", counterparts.stream().sorted().toList());
    if (failed.isEmpty()) {
      return List.of(new DeviceVerdict(null, judged == 0
          ? Verdict.skipped("none of the opcheck-equivalent checks (" + families + ") gave a result on the op")
          : Verdict.passed(Fact.of("tag", tag), Fact.of("judged", judged + " results of " + families + ": none failed"))));
    }
    String names = failed.entrySet().stream()
        .map(e -> e.getKey() + " (on " + String.join(", ", e.getValue()) + ")").collect(Collectors.joining(", "));
    return List.of(new DeviceVerdict(null, Verdict.failed(Finding.of(
        "an op tagged " + tag + " passes every opcheck-equivalent check",
        "the tag is not earned: " + names + " failed",
        "fix what those checks report, or drop pt2_compliant_tag from the registration: torch.compile trusts the"
            + " tag and may trace the op wrongly without an error",
        new Cause.Contract("pt2_compliant_tag not earned", String.join(", ", failed.keySet())))
        .with(Fact.of("failed checks", String.join(", ", failed.keySet()))))));
  }
}
