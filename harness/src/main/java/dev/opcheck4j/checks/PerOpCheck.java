package dev.opcheck4j.checks;

import java.util.List;

/**
 * A library-scope check that concludes about each op separately (one result per op, or per finding
 * about an op) instead of once for the library. It gives no result at all when it has nothing to
 * compare against.
 */
public interface PerOpCheck extends Check {
  /** One conclusion about one op. */
  record OpVerdict(String op, Verdict verdict) {}

  /** Evaluates the check for every op of the subject's library. Exceptions are harness errors. */
  List<OpVerdict> evaluateEach(Subject subject) throws Exception;

  @Override
  default Verdict evaluate(Subject subject) {
    throw new UnsupportedOperationException(id() + " concludes per op: use evaluateEach");
  }
}
