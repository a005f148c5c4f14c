package dev.opcheck4j.checks.kernel;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.KernelLines;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.FinishedOp;
import dev.opcheck4j.checks.ResultsCheck;
import dev.opcheck4j.checks.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * The op's kernel ran enough of its lines: of an op of a library built with gcov's coverage, the lines of the
 * functions its calls entered that the examples and generated inputs ran, against the minimum the run or the spec
 * asks ({@code --min-line-coverage}, {@code "min-line-coverage"}). Without a minimum it passes with the
 * percentages; an op of a library built without coverage has no result. A minimum is a gate the user sets, as
 * {@code --require} is: under it the run fails.
 */
public final class LineCoverageCheck extends CheckBase implements ResultsCheck {
  public static final String ID = "kernel.line-coverage";
  private static final int NEVER_SHOWN = 12;

  public LineCoverageCheck() {
    super(Declaration.error(ID, "an op of a library built with coverage runs at least the minimum share of its kernel's"
        + " lines (--min-line-coverage)"));
  }

  @Override
  public List<DeviceVerdict> judge(FinishedOp done) {
    KernelLines k = done.lines();
    if (k == null) {
      return List.of();
    }
    List<Fact> facts = new ArrayList<>();
    facts.add(Fact.of("lines", percent(k.generated().linePercent(), k.generated().linesRun(), k.generated().lines())
        + " with generated inputs, " + percent(k.examples().linePercent(), k.examples().linesRun(), k.examples().lines())
        + " by the examples alone"));
    facts.add(Fact.of("branches", percent(k.generated().branchPercent(), k.generated().branchesTaken(),
        k.generated().branches()) + " with generated inputs, " + percent(k.examples().branchPercent(),
        k.examples().branchesTaken(), k.examples().branches()) + " by the examples alone"));
    List<String> never = never(k);
    if (!never.isEmpty()) {
      facts.add(Fact.of("never run", String.join(", ", never.subList(0, Math.min(NEVER_SHOWN, never.size())))
          + (never.size() > NEVER_SHOWN ? " and " + (never.size() - NEVER_SHOWN) + " more" : "")));
    }
    if (k.note() != null) {
      facts.add(Fact.of(Fact.NOT_CHECKED, k.note()));
    }
    Double min = done.minLineCoverage();
    if (min == null || k.generated().linePercent() >= min) {
      if (min != null) {
        facts.add(0, Fact.of("minimum", min + "%"));
      }
      return List.of(new DeviceVerdict(null, Verdict.passed(facts)));
    }
    Finding f = new Finding("at least " + min + "% of the lines of the functions the op's kernel ran, run by its examples"
        + " and generated inputs", k.generated().linePercent() + "% (" + k.generated().linesRun() + " of "
        + k.generated().lines() + " lines)", "add an example (or let the spec's \"vary\" reach) for each line never run;"
        + " the HTML report shows the kernel's source with them", new Cause.Contract("line coverage under the minimum",
        ""), facts, List.of());
    return List.of(new DeviceVerdict(null, Verdict.failed(f)));
  }

  private static String percent(double p, int part, int whole) {
    return p + "% (" + part + "/" + whole + ")";
  }

  /** The lines no input ran, as {@code file:line}, in source order. */
  private static List<String> never(KernelLines k) {
    List<String> out = new ArrayList<>();
    for (KernelLines.Function f : k.functions()) {
      String file = f.file().substring(f.file().lastIndexOf('/') + 1);
      for (KernelLines.Line l : f.lines()) {
        if (l.run() == KernelLines.Run.NEVER) {
          out.add(file + ":" + l.number());
        }
      }
    }
    return out;
  }
}
