package dev.opcheck4j.reports;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import java.util.Collection;
import java.util.Locale;

/**
 * How the human formats group results: the eight outcomes, with a failure that took its process
 * down (its finding's cause is a crash or a timeout) shown apart as crashed, and "not applicable"
 * for a cell where no check of a family gave a result.
 */
final class Outcomes {
  private Outcomes() {}

  /** Display kinds, worst first. */
  enum Kind {
    CRASHED(null),
    ERRORED(Outcome.ERRORED),
    FAILED(Outcome.FAILED),
    UNEXPECTED_PASS(Outcome.UNEXPECTED_PASS),
    WARNING(Outcome.WARNING),
    EXPECTED_FAILURE(Outcome.EXPECTED_FAILURE),
    NOTE(Outcome.NOTE),
    SKIPPED(Outcome.SKIPPED),
    PASSED(Outcome.PASSED),
    NOT_APPLICABLE(null);

    private final Outcome outcome;

    Kind(Outcome outcome) {
      this.outcome = outcome;
    }

    /** The api outcome this kind shows, or null for crashed and not applicable. */
    Outcome outcome() {
      return outcome;
    }

    String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    /** A CSS class / identifier form: {@code not-applicable}. */
    String css() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  static Kind kind(CheckResult r) {
    if (r.outcome() == Outcome.FAILED && r.finding() != null
        && (r.finding().cause() instanceof Cause.Crash || r.finding().cause() instanceof Cause.Timeout)) {
      return Kind.CRASHED;
    }
    return switch (r.outcome()) {
      case PASSED -> Kind.PASSED;
      case FAILED -> Kind.FAILED;
      case SKIPPED -> Kind.SKIPPED;
      case ERRORED -> Kind.ERRORED;
      case WARNING -> Kind.WARNING;
      case NOTE -> Kind.NOTE;
      case EXPECTED_FAILURE -> Kind.EXPECTED_FAILURE;
      case UNEXPECTED_PASS -> Kind.UNEXPECTED_PASS;
    };
  }

  /** The worst kind among results; not applicable when there are none. */
  static Kind worst(Collection<CheckResult> results) {
    Kind worst = Kind.NOT_APPLICABLE;
    for (CheckResult r : results) {
      Kind k = kind(r);
      if (k.ordinal() < worst.ordinal()) {
        worst = k;
      }
    }
    return worst;
  }

  /** Whether a result is one a reader must look at: crashed, errored, failed, an unexpected pass or warning. */
  static boolean needsAttention(CheckResult r) {
    return kind(r).ordinal() <= Kind.WARNING.ordinal();
  }

  /** The row name of a result: the op, or the library for library-scope results. */
  static String subject(CheckResult r) {
    return r.library() != null ? r.library() : r.op();
  }
}
