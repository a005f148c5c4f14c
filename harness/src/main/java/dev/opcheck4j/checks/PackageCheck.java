package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;
import java.util.List;

/**
 * A check of an AOTInductor package ({@code .pt2}) that a run names (a spec's {@code "packages"},
 * {@code --package}) against what the run's libraries register: the ops the package calls through the proxy
 * executor, each with the arguments the package recorded. It concludes on data in the parent, or, when it
 * {@link #runsPackage() runs the package}, on what a worker saw running it.
 */
public non-sealed interface PackageCheck extends Check {
  /**
   * One conclusion.
   *
   * @param op the op it is about ({@code ns::name}), or null when it is about the package as a whole
   * @param verdict what the check concluded
   */
  record PackageVerdict(String op, Verdict verdict) {}

  @Override
  default CheckInfo.Scope scope() {
    return CheckInfo.Scope.LIBRARY;
  }

  /**
   * Whether it concludes on the package's run: the runner runs the package in a worker for it (when the entry
   * gives inputs and expected outputs, and every check it {@link #requires()} passed on the package) and hands
   * it the run; else it concludes on the package's data alone.
   */
  default boolean runsPackage() {
    return false;
  }

  /** Evaluates the check on {@code subject}. Exceptions escaping here are harness errors. */
  List<PackageVerdict> evaluatePackage(PackageSubject subject);
}
