package dev.opcheck4j.cli;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.RunReport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/** The end of a run on the command line ({@code check}, {@code demo}, {@code merge}): reports, summary, exit code. */
final class RunSummary {
  private RunSummary() {}

  /** Writes the reports into {@code reportDir} (none when null), prints the summary and the input errors. */
  static ExitCode finish(RunReport report, List<String> inputErrors, Path reportDir, Session s) throws IOException {
    writeReports(report, reportDir, s.out());
    printSummary(report, s.out());
    for (String e : inputErrors) {
      s.err().println("opcheck: " + HumanText.name(e, HumanText.FACT_LIMIT));
    }
    if (report.count(Outcome.ERRORED) > 0) {
      return ExitCode.HARNESS_ERROR;
    }
    if (!inputErrors.isEmpty()) {
      return ExitCode.INPUT_ERROR;
    }
    return report.count(Outcome.FAILED) > 0 ? ExitCode.CHECK_FAILED : ExitCode.OK;
  }

  private static void writeReports(RunReport report, Path dir, PrintStream out) throws IOException {
    if (dir == null) {
      return;
    }
    Files.createDirectories(dir);
    boolean any = false;
    for (ReportFormat format : ServiceLoader.load(ReportFormat.class)) {
      Path written = format.write(report, dir);
      out.println("report (" + format.name() + "): " + written);
      any = true;
    }
    if (!any) {
      throw new IllegalStateException("no report formats on the classpath (opcheck4j-reports missing)");
    }
  }

  private static void printSummary(RunReport report, PrintStream out) {
    Map<String, EnumMap<Outcome, Integer>> byOp = new LinkedHashMap<>();
    for (CheckResult r : report.results()) {
      String row = HumanText.name(r.library() != null ? r.library() : r.op());
      byOp.computeIfAbsent(row, k -> new EnumMap<>(Outcome.class)).merge(r.outcome(), 1, Integer::sum);
    }
    int width = byOp.keySet().stream().mapToInt(String::length).max().orElse(2);
    out.println();
    StringBuilder head = new StringBuilder(String.format("%-" + width + "s ", "op"));
    for (Outcome o : Outcome.values()) {
      head.append(String.format(" %7s", o.label()));
    }
    out.println(head);
    for (var e : byOp.entrySet()) {
      StringBuilder row = new StringBuilder(String.format("%-" + width + "s ", e.getKey()));
      for (Outcome o : Outcome.values()) {
        row.append(String.format(" %7d", e.getValue().getOrDefault(o, 0)));
      }
      out.println(row);
    }
    List<String> parts = new ArrayList<>();
    for (Outcome o : Outcome.values()) {
      parts.add(report.count(o) + " " + o.label());
    }
    out.println("summary: " + String.join(", ", parts) + " (" + report.results().size() + " results, "
        + HumanText.duration(report.durationMs()) + ")");
  }
}
