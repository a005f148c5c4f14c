package dev.opcheck4j.cli;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.reporting.NoteCounts;
import dev.opcheck4j.reporting.ReportWriter;
import dev.opcheck4j.run.ResultsFile;
import dev.opcheck4j.run.RunOutcome;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.ServiceLoader;

/** The end of a run on the command line ({@code check}, {@code demo}, {@code merge}): reports, summary, exit code. */
final class RunSummary {
  private RunSummary() {}

  /**
   * Writes the reports into {@code reportDir} (none when null), Allure's only when {@code allure}, and
   * prints the summary and the input errors.
   */
  static ExitCode finish(RunReport report, List<String> inputErrors, Path reportDir, boolean allure, Session s)
      throws IOException, UsageException {
    return finish(report, inputErrors, reportDir, reportDir == null ? List.of() : formats(reportDir, allure), s);
  }

  /** As {@link #finish(RunReport, List, Path, Session)}, with {@code formats} (some may have streamed during the run). */
  static ExitCode finish(RunReport report, List<String> inputErrors, Path reportDir, List<ReportFormat> formats,
      Session s) throws IOException, UsageException {
    if (reportDir != null) {
      writeReports(report, reportDir, s.out(), formats);
    }
    printSummary(report, s.out(), reportDir != null ? "the reports list them" : "--verbose prints them");
    for (String e : inputErrors) {
      s.err().println("opcheck: " + HumanText.name(e, HumanText.FACT_LIMIT));
    }
    String signal = report.run().completion().interrupted();
    if (signal != null) {
      s.err().println("opcheck: interrupted by " + signal + " after " + report.results().size() + " results; "
          + (reportDir == null ? "no --report-dir, so no reports were written"
              : "every report in " + reportDir + " holds them, marked interrupted"));
      return ExitCode.of(signal);
    }
    return ExitCode.of(RunOutcome.exitStatus(report.count(Outcome.ERRORED), inputErrors.size(),
        report.count(Outcome.FAILED) + report.count(Outcome.UNEXPECTED_PASS)));
  }

  /** Every report format on the classpath, each a new object (a format may keep what it streamed during a run). */
  /**
   * The formats to write into {@code dir}: those written by default, and the others ({@link
   * ReportFormat#byDefault}: Allure's) when {@code allure}. What a format not written left in {@code dir}
   * from an earlier run is deleted, so that no report there seems to be this run's.
   */
  static List<ReportFormat> formats(Path dir, boolean allure) throws IOException {
    List<ReportFormat> formats = new ArrayList<>();
    ServiceLoader.load(ReportFormat.class).forEach(formats::add);
    if (formats.isEmpty()) {
      throw new IllegalStateException("no report formats on the classpath (opcheck4j-reports missing)");
    }
    for (ReportFormat f : List.copyOf(formats)) {
      if (!f.byDefault() && !allure) {
        formats.remove(f);
        f.discard(dir);
      }
    }
    return formats;
  }

  /**
   * Writes every format through {@link ReportWriter}, one line each; when one failed (its cut-off file is
   * gone, the others are written), the run ends with a usage error that names the formats missing.
   */
  static void writeReports(RunReport report, Path dir, PrintStream out, List<ReportFormat> formats)
      throws IOException, UsageException {
    List<String> missing = new ArrayList<>();
    for (ReportWriter.Written w : ReportWriter.write(report, dir, formats)) {
      out.println(w.line());
      if (w.failure() != null) {
        missing.add(w.format());
      }
    }
    if (!missing.isEmpty()) {
      throw new UsageException("report dir: no " + String.join(", ", missing) + " report was written (nothing cut off "
          + "is left); the results are in " + dir.resolve(ResultsFile.NAME) + " (complete lines)");
    }
  }

  /**
   * What each runtime of a run on several cost, one line, and the second runtime's cost against the first's
   * (measured, never asserted): {@code runtimes: 2.10.0 12.1 s (590 results), 2.13.0 11.8 s (590 results);
   * runtime.agree 2.3 s; the second runtime cost 0.98x the first}. Nothing for a run on one.
   */
  static void printRuntimes(List<dev.opcheck4j.run.RuntimeCost> costs, PrintStream out) {
    if (costs.isEmpty()) {
      return;
    }
    List<String> parts = new ArrayList<>();
    for (dev.opcheck4j.run.RuntimeCost c : costs) {
      parts.add(c.name() + " " + HumanText.duration(c.ms()) + " (" + c.results() + " results)");
    }
    String ratio = "";
    List<dev.opcheck4j.run.RuntimeCost> runs = costs.stream().filter(c -> Character.isDigit(c.name().charAt(0))).toList();
    if (runs.size() >= 2 && runs.get(0).ms() > 0) {
      long others = runs.subList(1, runs.size()).stream().mapToLong(dev.opcheck4j.run.RuntimeCost::ms).sum();
      long all = costs.stream().mapToLong(dev.opcheck4j.run.RuntimeCost::ms).sum();
      ratio = String.format(java.util.Locale.ROOT, "; the runtimes after the first cost %.2fx its wall time, the whole run %.2fx",
          (double) others / runs.get(0).ms(), (double) all / runs.get(0).ms());
    }
    out.println("runtimes: " + String.join(", ", parts) + ratio);
  }

  /** As {@link #printSummary(RunReport, PrintStream, String)}, for a run that wrote its reports. */
  static void printSummary(RunReport report, PrintStream out) {
    printSummary(report, out, "the reports list them");
  }

  /**
   * The per-op table of outcomes, the summary line of the results, the notes' line ({@link NoteCounts}), and
   * the coverage gaps.
   *
   * @param notesListed where each note can be read, for the notes' line; null for no notes' line (the JUnit
   *     engine printed it)
   */
  static void printSummary(RunReport report, PrintStream out, String notesListed) {
    Map<String, EnumMap<Outcome, Integer>> byOp = new LinkedHashMap<>();
    for (CheckResult r : report.results()) {
      String row = HumanText.name(r.library() != null ? r.library() : r.op())
          + (r.runtime() == null ? "" : " @" + HumanText.name(r.runtime()));
      byOp.computeIfAbsent(row, k -> new EnumMap<>(Outcome.class)).merge(r.outcome(), 1, Integer::sum);
    }
    int width = byOp.keySet().stream().mapToInt(String::length).max().orElse(2);
    List<Outcome> columns = columns(report);
    out.println();
    StringBuilder head = new StringBuilder(String.format("%-" + width + "s ", "op"));
    for (Outcome o : columns) {
      head.append(String.format(" %" + Math.max(7, o.label().length()) + "s", o.label()));
    }
    out.println(head);
    for (var e : byOp.entrySet()) {
      StringBuilder row = new StringBuilder(String.format("%-" + width + "s ", e.getKey()));
      for (Outcome o : columns) {
        row.append(String.format(" %" + Math.max(7, o.label().length()) + "d", e.getValue().getOrDefault(o, 0)));
      }
      out.println(row);
    }
    List<String> parts = new ArrayList<>();
    for (Outcome o : columns) {
      parts.add(report.count(o) + " " + o.label());
    }
    String mark = report.run().completion().mark();
    out.println("summary" + (mark == null ? "" : " (" + (report.run().completion().interrupted() != null
        ? "interrupted" : "incomplete") + ")") + ": " + String.join(", ", parts) + " ("
        + report.results().size() + " results, " + HumanText.duration(report.durationMs()) + ")");
    if (mark != null) {
      out.println(mark);
    }
    if (notesListed != null) {
      NoteCounts.of(report.results()).line("--strict", notesListed)
          .ifPresent(line -> out.println(String.join("\n  ", HumanText.wrap(visible(line), HumanText.WIDTH - 2))));
    }
    long cached = cachedRows(report);
    if (cached > 0) {
      // a replayed job without results (no library-wide check selected) alone replayed nothing to count
      out.println("cached: " + cached + " of " + byOp.size() + " ops (results replayed from --cache)");
    }
    for (String line : gapLines(report.coverage())) {
      out.println(line);
    }
    for (String line : notCheckedLines(report.results())) {
      out.println(line);
    }
  }

  /**
   * One line per check and thing it passed without looking at ({@link Fact#NOT_CHECKED}), with on how
   * many of the ops it ran on.
   */
  static List<String> notCheckedLines(List<CheckResult> results) {
    Map<String, Set<String>> ran = new LinkedHashMap<>();
    Map<List<String>, Set<String>> missed = new LinkedHashMap<>();
    for (CheckResult r : results) {
      if (r.op() == null || r.outcome() == Outcome.SKIPPED) {
        continue;
      }
      ran.computeIfAbsent(r.check(), k -> new java.util.TreeSet<>()).add(r.op());
      if (r.outcome() == Outcome.PASSED) {
        r.fact(Fact.NOT_CHECKED).ifPresent(what -> missed.computeIfAbsent(List.of(r.check(), what),
            k -> new java.util.TreeSet<>()).add(r.op()));
      }
    }
    List<String> lines = new ArrayList<>();
    for (Map.Entry<List<String>, Set<String>> m : missed.entrySet()) {
      String check = m.getKey().get(0);
      int of = ran.get(check).size();
      String line = check + " passed " + m.getValue().size() + " of " + of + (of == 1 ? " op" : " ops")
          + " without checking everything: " + visible(m.getKey().get(1));
      lines.add(String.join("\n  ", HumanText.wrap(line, HumanText.WIDTH - 2)));
    }
    return lines;
  }

  /**
   * The outcomes the summary counts: the five of every run, and notes, expected failures and unexpected
   * passes apart in a run that has them.
   */
  static List<Outcome> columns(RunReport report) {
    return java.util.Arrays.stream(Outcome.values()).filter(o -> (o != Outcome.NOTE && o != Outcome.EXPECTED_FAILURE
        && o != Outcome.UNEXPECTED_PASS) || report.count(o) > 0).toList();
  }

  /**
   * The rows of the table whose every result was replayed: a result comes from the job of its op, or
   * of its library when it has one; a result of a library-wide check about an op (schema.compatible)
   * from its library's job.
   */
  static long cachedRows(RunReport report) {
    java.util.Set<String> cached = new java.util.HashSet<>(report.run().cached());
    Map<String, Boolean> rows = new LinkedHashMap<>();
    for (CheckResult r : report.results()) {
      // in a run on several runtimes, a row and a replayed op are per runtime: ns::op @2.10.0
      String at = r.runtime() == null ? "" : " @" + r.runtime();
      boolean libraryJob = cached.stream().anyMatch(name -> !name.replace(at, "").contains("::") && name.endsWith(at));
      boolean replayed = r.library() != null ? cached.contains(r.library() + at)
          : report.check(r.check()).map(c -> c.scope() == dev.opcheck4j.api.CheckInfo.Scope.LIBRARY).orElse(false)
              ? libraryJob : cached.contains(r.op() + at);
      rows.merge(HumanText.name(r.library() != null ? r.library() : r.op())
          + (r.runtime() == null ? "" : " @" + HumanText.name(r.runtime())), replayed, Boolean::logicalAnd);
    }
    return rows.values().stream().filter(b -> b).count();
  }

  /**
   * One line per family that never ran on some ops, with why and how to gate on it; where the ops
   * differ in why, one line per reason under it, with how many ops it holds (commonest first). In a run on
   * several runtimes, the families one runtime never ran on the same ops for the same reasons (a library it
   * refused) are one line, {@code on 2.10.0: kernel, fake never ran on 1 of 1 op: ...}.
   */
  static List<String> gapLines(Coverage coverage) {
    List<String> lines = new ArrayList<>();
    Map<List<Object>, List<Coverage.Gap>> grouped = new LinkedHashMap<>();
    for (Coverage.Gap g : coverage.gaps()) {
      List<Object> key = g.runtime() == null ? List.of(g) : List.of(g.runtime(), g.of(), g.reasons());
      grouped.computeIfAbsent(key, k -> new ArrayList<>()).add(g);
    }
    for (List<Coverage.Gap> group : grouped.values()) {
      Coverage.Gap g = group.get(0);
      List<String> families = group.stream().map(Coverage.Gap::family).toList();
      String head = (g.runtime() == null ? "" : "on " + visible(g.runtime()) + ": ") + String.join(", ", families)
          + " never ran on " + g.ops().size() + " of " + g.of() + (g.of() == 1 ? " op" : " ops");
      String gate = " — or --require " + String.join(" --require ", families) + " to fail on this";
      Map<String, List<String>> byReason = byReason(g);
      if (byReason.size() > 1) {
        lines.add(String.join("\n  ", HumanText.wrap(head + gate + ":", HumanText.WIDTH - 2)));
        byReason.forEach((reason, ops) -> lines.add("  " + String.join("\n    ", HumanText.wrap(ops.size()
            + (ops.size() == 1 ? " op: " : " ops: ") + visible(reason), HumanText.WIDTH - 4))));
        continue;
      }
      String line = head + ": " + visible(g.reason()) + gate;
      // wrapped at spaces as the findings' facts are: a terminal would break it in the middle of a word
      lines.add(String.join("\n  ", HumanText.wrap(line, HumanText.WIDTH - 2)));
    }
    // where generation stopped early (the op killed its worker 3 times): per op and device, the families
    // that lost tries, and how many
    Map<String, List<String>> cut = new LinkedHashMap<>();
    Map<String, String> lost = new LinkedHashMap<>();
    for (Coverage.Entry e : coverage.entries()) {
      if (e.lost() > 0 && e.generated() != null) {
        String where = visible(e.op()) + " on " + e.deviceLabel() + (e.runtime() == null ? "" : " with libtorch " + visible(e.runtime()));
        cut.computeIfAbsent(where, k -> new ArrayList<>()).add(e.family());
        lost.putIfAbsent(where, e.lost() + " of " + (e.generated() + e.lost()));
      }
    }
    for (Map.Entry<String, List<String>> c : cut.entrySet()) {
      lines.add("generation stopped early on " + c.getKey() + " (the op kept killing its worker): " + lost.get(c.getKey())
          + " tries not run for " + String.join(", ", c.getValue()));
    }
    return lines;
  }

  /**
   * The ops of {@code gap}, grouped by why its family never ran on each (the reason {@link
   * Coverage#gaps} counts for an op: not the spec's, a device this process lacks last), the commonest
   * reason first.
   */
  private static Map<String, List<String>> byReason(Coverage.Gap gap) {
    Map<String, List<String>> groups = new LinkedHashMap<>();
    gap.reasons().forEach((op, reason) -> groups.computeIfAbsent(reason, r -> new ArrayList<>()).add(op));
    Map<String, List<String>> sorted = new LinkedHashMap<>();
    groups.entrySet().stream().sorted(java.util.Comparator.comparing(r -> -r.getValue().size()))
        .forEach(r -> sorted.put(r.getKey(), r.getValue()));
    return sorted;
  }

  /** Text from the run with its control characters made visible, for the terminal. */
  private static String visible(String text) {
    StringBuilder b = new StringBuilder();
    text.codePoints().forEach(c -> b.append(Character.isISOControl(c) ? String.format("\\u%04x", c)
        : new String(Character.toChars(c))));
    return b.toString();
  }
}
