package dev.opcheck4j.api;

import java.util.Locale;

/**
 * What a finding of a check means. An {@link #ERROR} check reports what PyTorch's own contracts call a
 * defect (or a silently wrong answer) as {@link Outcome#FAILED}; a {@link #WARNING} check reports
 * something stricter than PyTorch as {@link Outcome#WARNING}, which never changes the exit code
 * unless warnings are made errors.
 */
public enum Severity {
  ERROR,
  WARNING;

  /** The lower-case name used in listings and reports: {@code error}, {@code warning}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
