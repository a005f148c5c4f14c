package dev.opcheck4j.checks;

import dev.opcheck4j.torch.SchemaBaseline;
import java.util.List;

/**
 * A library-scope check that compares what a library registers against a schema baseline and
 * concludes about each op separately (one result per op, or per finding about an op). It works on
 * data alone, so it runs wherever the library's description is, and gives no result without a baseline.
 */
public interface PerOpCheck extends Check {
  /** One conclusion about one op. */
  record OpVerdict(String op, Verdict verdict) {}

  /** Evaluates the check for every op of the library and of the baseline; empty when baseline is null. */
  List<OpVerdict> evaluateEach(LibraryView library, SchemaBaseline baseline);

  @Override
  default Verdict evaluate(Subject subject) {
    throw new UnsupportedOperationException(id() + " concludes per op: use evaluateEach");
  }
}
