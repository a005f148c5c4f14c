package dev.opcheck4j.api;

import java.util.Locale;

/**
 * What a finding of a check means. An {@link #ERROR} check reports what PyTorch's own contracts call a
 * defect (or a silently wrong answer) as {@link Outcome#FAILED}; a {@link #WARNING} check reports
 * something stricter than PyTorch that a maintainer must act on as {@link Outcome#WARNING}, which never
 * changes the exit code unless warnings are made errors; a {@link #NOTE} check reports something stricter
 * than PyTorch and harmless in today's PyTorch (most correct ops get it) as {@link Outcome#NOTE}, which is
 * not a warning unless the run is strict. {@link SeverityPolicy} decides.
 */
public enum Severity {
  ERROR,
  WARNING,
  NOTE;

  /** The lower-case name used in listings and reports: {@code error}, {@code warning}, {@code note} (SARIF's levels). */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
