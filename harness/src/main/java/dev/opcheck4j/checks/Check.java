package dev.opcheck4j.checks;

import java.util.List;

/**
 * One conformance check. Each has a stable lower-case id whose first word is its family
 * ({@code schema.types}; a family of one check may be a single word, {@code determinism}), a one-line summary and a doc page {@code docs/checks/<id>.md}.
 */
public interface Check {
  /**
   * How often a check runs: once per library, per op, per (op, device) or per (op, device, example);
   * or never on its own ({@link #SUPERVISOR}): its results are given by the run's supervisor, about
   * the unit that was running when a worker died.
   */
  enum Scope {
    LIBRARY,
    OP,
    DEVICE,
    EXAMPLE,
    SUPERVISOR
  }

  String id();

  String summary();

  Scope scope();

  /**
   * Checks (by id) that must have passed for the same op (and device) before this one can say
   * anything; when one did not, this check is Skipped with that reason.
   */
  default List<String> requires() {
    return List.of();
  }

  /**
   * Whether the check means anything on {@code device}. Checks that compare values do not apply to
   * meta (it has none); the fake-kernel checks compare a real device against meta. A check that
   * does not apply gives no result for that device (it is not a skip: there is nothing to run).
   */
  default boolean appliesTo(dev.opcheck4j.torch.Device device) {
    return true;
  }

  /** Evaluates the check. Exceptions escaping here are harness errors, reported as Errored. */
  Verdict evaluate(Subject subject) throws Exception;

  /** The family: the part of the id before the first dot (the whole id when it has none). */
  default String family() {
    int dot = id().indexOf('.');
    return dot < 0 ? id() : id().substring(0, dot);
  }
}
