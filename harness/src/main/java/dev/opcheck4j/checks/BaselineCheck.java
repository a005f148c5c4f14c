package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.torch.SchemaBaseline;
import java.util.List;

/**
 * A library-scope check that compares what a library registers against a schema baseline and
 * concludes about each op separately (one result per op, or per finding about an op). It works on
 * data alone, so it runs in the parent, and gives no result without a baseline.
 */
public non-sealed interface BaselineCheck extends Check {
  /** One conclusion about one op. */
  record OpVerdict(String op, Verdict verdict) {}

  @Override
  default CheckInfo.Scope scope() {
    return CheckInfo.Scope.LIBRARY;
  }

  /** Evaluates the check for every op of the library and of the baseline; empty when baseline is null. */
  List<OpVerdict> evaluateEach(LibraryView library, SchemaBaseline baseline);
}
