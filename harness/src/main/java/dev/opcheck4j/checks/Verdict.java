package dev.opcheck4j.checks;

import dev.opcheck4j.api.Repro;
import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a check concluded, before the runner adds op, device, example and timing. A FAILED verdict
 * carries its typed {@link Finding}; its facts are only the display form, derived from the finding.
 *
 * @param outcome the verdict; FAILED means "found something" and becomes what the run's severity policy says
 * @param finding what was found, for a FAILED verdict; null for every other outcome
 * @param context for FAILED, the facts shown after the finding's details and before its hint (the
 *     example); for the other outcomes, every fact shown (what was checked, the reason, the harness error)
 */
public record Verdict(Outcome outcome, Finding finding, List<Fact> context) {
  public Verdict {
    Objects.requireNonNull(outcome, "outcome");
    context = List.copyOf(context);
    if ((outcome == Outcome.FAILED) != (finding != null)) {
      throw new IllegalArgumentException("a finding belongs to a FAILED verdict, and only to one: " + outcome);
    }
  }

  /** The display form: for a finding, expected, but was, its details, the context, then its hint. */
  public List<Fact> facts() {
    if (finding == null) {
      return context;
    }
    List<Fact> shown = new ArrayList<>(finding.facts());
    shown.addAll(context);
    shown.addAll(finding.hintFact());
    return shown;
  }

  /**
   * Why a skipped verdict was skipped, or what an errored one hit ({@link #skipped}, {@link #errored}: the
   * one fact such a verdict has); null for other outcomes.
   */
  public String reason() {
    return (outcome == Outcome.SKIPPED || outcome == Outcome.ERRORED) && !context.isEmpty() ? context.get(0).value() : null;
  }

  /** The same verdict shown with {@code facts} as its context instead. */
  public Verdict withContext(List<Fact> facts) {
    return new Verdict(outcome, finding, facts);
  }

  /**
   * The same verdict shown with {@code where} (the example, the minimal example, the seed) in place of
   * its own context: for a finding between its details and its hint, else after its facts.
   */
  public Verdict shownWith(List<Fact> where) {
    if (finding != null) {
      return withContext(where);
    }
    List<Fact> all = new ArrayList<>(context);
    all.addAll(where);
    return withContext(all);
  }

  /**
   * Whether {@code other} is the same failure: the same outcome and, for a finding, the same cause
   * ({@link dev.opcheck4j.api.Cause#sameAs}). A shrunk input counts only while this holds.
   */
  public boolean sameFailure(Verdict other) {
    if (outcome != other.outcome) {
      return false;
    }
    return finding == null ? other.finding == null : other.finding != null && finding.cause().sameAs(other.finding.cause());
  }

  public static Verdict passed(Fact... facts) {
    return new Verdict(Outcome.PASSED, null, List.of(facts));
  }

  public static Verdict passed(List<Fact> facts) {
    return new Verdict(Outcome.PASSED, null, facts);
  }

  /** A finding, shown with {@code context} (the example) between its details and its hint. */
  public static Verdict failed(Finding finding, Fact... context) {
    return new Verdict(Outcome.FAILED, finding, List.of(context));
  }

  public static Verdict skipped(String reason) {
    return new Verdict(Outcome.SKIPPED, null, List.of(new Fact("reason", reason)));
  }

  public static Verdict errored(String message) {
    return new Verdict(Outcome.ERRORED, null, List.of(new Fact("harness error", message)));
  }

  /**
   * The result this verdict becomes for {@code check} on {@code op}: a finding (a FAILED verdict) has
   * the outcome the severity policy gives it ({@link SeverityPolicy#findingOutcome}), and carries the
   * finding and {@code repro}.
   */
  public CheckResult result(String op, Check check, String device, String example, long micros, SeverityPolicy severity,
      Repro repro) {
    Outcome o = outcome == Outcome.FAILED ? severity.findingOutcome(check.info()) : outcome;
    CheckResult r = new CheckResult(op, check.id(), device, example, o, facts(), micros);
    return finding == null ? r : r.withFinding(finding, repro);
  }
}
