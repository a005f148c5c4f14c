package dev.opcheck4j.api;

import java.util.List;
import java.util.Objects;

/**
 * Everything a check declares about itself, in one place (as Error Prone's {@code @BugPattern}): the
 * runner, the console, the reports and {@code ./opcheck checks} read it from here.
 *
 * @param id stable lower-case id; its first word is the family ({@code fake.metadata})
 * @param summary one line saying what the check asserts
 * @param scope how often it runs
 * @param severity what a finding is: a failure, a warning or a note
 * @param requires ids of checks that must have passed for the same op (and device) first; never null
 * @param generated whether it also runs on the generated inputs around each example
 * @param costly whether each call of it is costly (a gradient): on generated inputs it gets only
 *     {@link #triesOf} the tries
 * @param triesCap the most generated inputs it gets per op and device, or 0 for as many as the run makes: a
 *     budget for a check whose calls cost much beside what it finds on generated inputs (docs/performance.md,
 *     "What each check costs and finds on generated inputs")
 */
public record CheckInfo(
    String id, String summary, Scope scope, Severity severity, List<String> requires, boolean generated,
    boolean costly, int triesCap) {

  /**
   * How often a check runs: once per library, per op, per (op, device), per (op, device, example), or
   * once per (op, device) over everything the generated inputs showed; or never on its own
   * ({@link #SUPERVISOR}): its results are given by the run's supervisor, about the unit of work that
   * was running when a worker process died; or once per op over what its other checks covered
   * ({@link #RESULTS}), after every other result of the op.
   */
  public enum Scope {
    LIBRARY,
    OP,
    DEVICE,
    EXAMPLE,
    GENERATED,
    SUPERVISOR,
    RESULTS
  }

  public CheckInfo {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(summary, "summary");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(severity, "severity");
    requires = List.copyOf(requires);
    if (triesCap < 0) {
      throw new IllegalArgumentException(id + ": triesCap is 0 (none) or a number of tries, got " + triesCap);
    }
  }

  /** A check with no cap on its generated inputs. */
  public CheckInfo(String id, String summary, Scope scope, Severity severity, List<String> requires, boolean generated,
      boolean costly) {
    this(id, summary, scope, severity, requires, generated, costly, 0);
  }

  /** A check whose calls are not costly, with no cap on its generated inputs. */
  public CheckInfo(String id, String summary, Scope scope, Severity severity, List<String> requires, boolean generated) {
    this(id, summary, scope, severity, requires, generated, false);
  }

  /** A check whose findings are failures, with no prerequisites, on the examples only. */
  public static CheckInfo error(String id, Scope scope, String summary) {
    return new CheckInfo(id, summary, scope, Severity.ERROR, List.of(), false);
  }

  /** A check whose findings are warnings, with no prerequisites, on the examples only. */
  public static CheckInfo warning(String id, Scope scope, String summary) {
    return new CheckInfo(id, summary, scope, Severity.WARNING, List.of(), false);
  }

  /** A check whose findings are notes, with no prerequisites, on the examples only. */
  public static CheckInfo note(String id, Scope scope, String summary) {
    return new CheckInfo(id, summary, scope, Severity.NOTE, List.of(), false);
  }

  /** The same, with these prerequisites. */
  public CheckInfo requires(String... ids) {
    return new CheckInfo(id, summary, scope, severity, List.of(ids), generated, costly, triesCap);
  }

  /** The same, also run on generated inputs. */
  public CheckInfo onGeneratedInputs() {
    return new CheckInfo(id, summary, scope, severity, requires, true, costly, triesCap);
  }

  /**
   * How many of a run's {@code tries} generated inputs this check gets (the first ones it is open for: the size
   * edge cases come first): all of them, for a costly check a tenth (at least 3), and never more than its cap.
   * Every size edge case of every example is run besides, however many the examples make (the run's generation
   * does that: the count here does not know the examples).
   */
  public int triesOf(int tries) {
    int share = costly ? Math.max(3, tries / 10) : tries;
    return triesCap > 0 ? Math.min(share, triesCap) : share;
  }

  /** Whether it may get fewer generated inputs than a run's tries ({@link #triesOf}). */
  public boolean budgeted() {
    return costly || triesCap > 0;
  }

  /** The family: the part of the id before the first dot (the whole id when it has none). */
  public String family() {
    int dot = id.indexOf('.');
    return dot < 0 ? id : id.substring(0, dot);
  }

  /** The check's doc page, relative to the project root: {@code docs/checks/<id>.md}. */
  public String doc() {
    return "docs/checks/" + id + ".md";
  }

}
