package dev.opcheck4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.plan.RunRequest;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/** One run of a corpus spec through the launcher, and the questions its tests ask of the results. */
public record CorpusRun(RunReport report) {

  /** Runs {@code spec} (under fixtures/specs) at seed 7 with {@code tries} generated inputs; no input error allowed. */
  public static CorpusRun of(String spec, int tries) throws Exception {
    RunOutcome outcome = Launcher.execute(RunRequest.builder().seed(7L).tries(tries).jobs(2)
        .spec(NativeOps.spec(spec)).build(), RunListener.NONE);
    assertEquals(List.of(), outcome.inputErrors());
    return new CorpusRun(outcome.report());
  }

  public Stream<CheckResult> of(String op) {
    return report.results().stream().filter(r -> op.equals(r.op()));
  }

  /** The result of {@code check} on {@code device} for {@code op} on a spec example (not a generated summary). */
  public CheckResult one(String op, String check, String device) {
    return of(op).filter(r -> r.check().equals(check) && device.equals(r.device()) && !r.example().startsWith("generated"))
        .findFirst().orElseThrow(() -> new AssertionError("no " + check + " on " + device + " for " + op));
  }

  /**
   * Notes nearly every kernel of the corpora gets by design, compared only where a marker names them: a
   * stable-ABI Meta kernel sizes its output with sizes() (the stable ABI has no sym_size), which torch.compile
   * specialises on. trace_ops.cpp tests trace.specialization both ways; docs/checks/trace.specialization.md
   * lists what it says on the bundled corpora.
   */
  public static final java.util.Set<String> UBIQUITOUS_NOTES = java.util.Set.of("trace.specialization");

  /** Whether a result is a finding: a failure, a warning or a note (as its check's severity makes it). */
  public static boolean finding(CheckResult r) {
    return r.outcome() == Outcome.FAILED || r.outcome() == Outcome.WARNING || r.outcome() == Outcome.NOTE;
  }

  /** Whether a result is a note or warning of a ubiquitous check ({@link #UBIQUITOUS_NOTES}), left out where unmarked. */
  public static boolean ubiquitous(CheckResult r) {
    return (r.outcome() == Outcome.NOTE || r.outcome() == Outcome.WARNING) && UBIQUITOUS_NOTES.contains(r.check());
  }

  /**
   * A test per op of {@code ops}: the checks with findings (failed, warning or note) are exactly those its
   * {@code // EXPECT:} marker in {@code source} names, and nothing errored.
   */
  public Stream<DynamicTest> eachOpHasFindingsInExactlyItsMarkedChecks(String source, List<String> ops) throws Exception {
    var marked = NativeOps.expectations(source);
    return ops.stream().map(op -> DynamicTest.dynamicTest(op, () -> {
      Set<String> want = marked.getOrDefault(op, Set.of());
      List<CheckResult> findings = of(op).filter(CorpusRun::finding)
          .filter(r -> want.contains(r.check()) || !ubiquitous(r))
          .toList();
      Set<String> got = findings.stream().map(CheckResult::check).collect(Collectors.toCollection(TreeSet::new));
      assertEquals(want, got, "checks with findings on " + op + ": " + findings);
      assertEquals(List.of(), of(op).filter(r -> r.outcome() == Outcome.ERRORED).toList());
    }));
  }
}
