package dev.opcheck4j.checks.registration;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.LibraryCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import java.util.List;

/**
 * No kernel in the library's namespaces is registered for an operator that was never defined
 * (usually a typo in {@code m.impl("name", ...)}, or a def in a library that was not loaded).
 *
 * <p>Library-scoped: the runner reports one result per dangling name, or one passed result for the
 * library when there is none.
 */
public final class DanglingImplCheck extends CheckBase implements LibraryCheck {
  public static final String ID = "registration.dangling";
  private static final String RULE = "implemented but never defined";

  public DanglingImplCheck() {
    super(Declaration.error(ID, "no kernel is registered for an operator that was never defined"));
  }

  @Override
  public Verdict evaluateLibrary(Subject s) {
    List<String> dangling = s.library().danglingImpls();
    if (dangling.isEmpty()) {
      return Verdict.passed(Fact.of("namespaces", String.join(", ", s.library().namespaces())));
    }
    return Verdict.failed(Finding.of(
        "every implemented operator is defined",
        "implemented but never defined: " + String.join(", ", dangling),
        "add m.def(\"<schema>\") in STABLE_TORCH_LIBRARY(ns, m) for each, or fix the name in m.impl",
        new Cause.Contract(RULE, String.join(", ", dangling))).with(Fact.of("dangling", String.join(", ", dangling))));
  }

  /** One result per dangling name, each about the library (the name is no op the library defines). */
  @Override
  public List<String> resultsAbout(Verdict v, String library) {
    if (v.finding() != null && v.finding().cause() instanceof Cause.Contract c && c.rule().equals(RULE)) {
      return List.of(c.subject().split(", "));
    }
    return List.of(library);
  }
}
