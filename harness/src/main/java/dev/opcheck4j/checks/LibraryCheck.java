package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;
import java.util.List;

/** A check of a whole library, run once where the library is loaded (its subject has no op). */
public non-sealed interface LibraryCheck extends Check {
  @Override
  default CheckInfo.Scope scope() {
    return CheckInfo.Scope.LIBRARY;
  }

  /** Evaluates the check on {@code subject}'s library. Exceptions escaping here are harness errors. */
  Verdict evaluateLibrary(Subject subject) throws Exception;

  /**
   * The names the results of {@code verdict} are about, one result each: by default one result,
   * about {@code library} (the library's display name).
   */
  default List<String> resultsAbout(Verdict verdict, String library) {
    return List.of(library);
  }
}
