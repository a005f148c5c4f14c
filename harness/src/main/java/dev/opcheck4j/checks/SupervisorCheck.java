package dev.opcheck4j.checks;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import java.time.Duration;
import java.util.List;

/**
 * A check never run on its own: the run's supervisor gives its results, about the unit of work that
 * was running when a worker process died. Each supervisor check covers some causes of death.
 */
public non-sealed interface SupervisorCheck extends Check {
  /**
   * The key of the fact a crash on a generated input carries with what a check that diagnoses crashes saw on
   * its minimal example under its guards ({@link #diagnosesCrashes}): the check's id and its finding.
   */
  String DIAGNOSIS = "diagnosis";

  @Override
  default CheckInfo.Scope scope() {
    return CheckInfo.Scope.SUPERVISOR;
  }

  /** Whether a death with this cause is this check's finding. */
  boolean covers(Cause death);

  /**
   * The cause a fault at {@code address} is, when this check claims it from what the worker told in
   * its {@code step}; empty by default (the crash's own cause stands).
   */
  default java.util.Optional<Cause> fault(long address, String step) {
    return java.util.Optional.empty();
  }

  /**
   * Whether this check runs on a device where a check it requires killed the worker with a crash, instead of
   * being skipped: its own calls may show where the crash came from (a guard page or a canary catches the
   * access that damaged the heap). False by default.
   */
  default boolean diagnosesCrashes() {
    return false;
  }

  /**
   * What a worker printed while one unit ran means, when this check claims it (a sanitizer's report): the
   * cause, one line and the facts the death is; empty by default.
   *
   * @param output what the worker printed while the unit ran
   * @param libraries the file names of the run's op libraries
   */
  default java.util.Optional<Claim> claim(String output, List<String> libraries) {
    return java.util.Optional.empty();
  }

  /** A report a check claims: the cause of the unit's death, one line on what happened, and what is known. */
  record Claim(Cause cause, String message, List<Fact> facts) {
    public Claim {
      facts = List.copyOf(facts);
    }
  }

  /** {@code step} as a reader sees it, without what this check told only for the supervisor. */
  default String shown(String step) {
    return step;
  }

  /**
   * The finding a death is.
   *
   * @param death how the worker died
   * @param happened what the supervisor saw, one line
   * @param deadline the unit's deadline
   * @param details what was running and what is known of the death, in display order
   */
  Finding finding(Cause death, String happened, Duration deadline, List<Fact> details);
}
