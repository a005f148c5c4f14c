package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.RunListener;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link ResultsCheck} reads of an op once every other result of it is in.
 *
 * @param op the op
 * @param coverage the coverage of the op's other results
 * @param required the check families the run and the op's spec require, in order; never null
 * @param tags the op's tags, registered and declared
 * @param results the op's other results, each with its check's own verdict (before the expected-failures
 *     file turns a listed failure into an expected one), in the order they came
 * @param lines its kernel's line coverage, or null when its library was not built with coverage
 * @param minLineCoverage the least share of those lines, in percent, that must run, or null for none
 */
public record FinishedOp(String op, Coverage coverage, List<String> required, OpTags tags, List<CheckResult> results,
    dev.opcheck4j.api.KernelLines lines, Double minLineCoverage) {
  public FinishedOp {
    required = List.copyOf(required);
    results = List.copyOf(results);
  }

  /** An op of a library built without coverage. */
  public FinishedOp(String op, Coverage coverage, List<String> required, OpTags tags, List<CheckResult> results) {
    this(op, coverage, required, tags, results, null, null);
  }

  /** Keeps the results it is given, for the op's {@link FinishedOp}. */
  public static final class Gathered implements RunListener {
    private final List<CheckResult> results = new ArrayList<>();

    @Override
    public synchronized void result(CheckResult result) {
      results.add(result);
    }

    public synchronized List<CheckResult> results() {
      return List.copyOf(results);
    }
  }
}
