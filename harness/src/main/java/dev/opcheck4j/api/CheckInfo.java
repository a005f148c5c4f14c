package dev.opcheck4j.api;

import java.util.Objects;

/**
 * One entry of the checks catalog a report carries, so a reader can tell "not applicable" (a check
 * that ran and gave no result for a cell) from "not run" (a check left out of the run).
 *
 * @param id stable check id, e.g. {@code fake.metadata}
 * @param family the part of the id before the first dot
 * @param summary one line saying what the check asserts
 * @param severity {@code error} (a finding fails the run) or {@code warning} (a finding is shown, the run passes)
 * @param doc the check's doc page relative to the project root, e.g. {@code docs/checks/fake.metadata.md}
 */
public record CheckInfo(String id, String family, String summary, String severity, String doc) {
  public CheckInfo {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(family, "family");
    Objects.requireNonNull(summary, "summary");
    Objects.requireNonNull(severity, "severity");
    Objects.requireNonNull(doc, "doc");
  }

  /** The doc page every check has: {@code docs/checks/<id>.md}. */
  public static String docPage(String id) {
    return "docs/checks/" + id + ".md";
  }
}
