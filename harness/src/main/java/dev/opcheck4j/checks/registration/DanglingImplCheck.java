package dev.opcheck4j.checks.registration;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckInfo.Scope;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.CheckBase;
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
public final class DanglingImplCheck extends CheckBase {
  public static final String ID = "registration.dangling";

  public DanglingImplCheck() {
    super(CheckInfo.error(ID, Scope.LIBRARY, "no kernel is registered for an operator that was never defined"));
  }

  @Override
  public Verdict evaluate(Subject s) {
    List<String> dangling = s.library().danglingImpls();
    if (dangling.isEmpty()) {
      return Verdict.passed(Fact.of("namespaces", String.join(", ", s.library().namespaces())));
    }
    return Verdict.failed(
        "every implemented operator is defined",
        "implemented but never defined: " + String.join(", ", dangling),
        "add m.def(\"<schema>\") in STABLE_TORCH_LIBRARY(ns, m) for each, or fix the name in m.impl",
        Fact.of("dangling", String.join(", ", dangling)));
  }

  /** The dangling operator names a failed verdict names, one result each. */
  public static List<String> danglingNames(Verdict v) {
    return v.facts().stream()
        .filter(f -> f.key().equals("dangling"))
        .flatMap(f -> List.of(f.value().split(", ")).stream())
        .toList();
  }
}
