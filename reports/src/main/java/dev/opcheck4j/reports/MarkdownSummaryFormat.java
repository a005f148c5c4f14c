package dev.opcheck4j.reports;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.NumberText;
import dev.opcheck4j.api.ResultText;
import dev.opcheck4j.api.TerminalText;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * {@code opcheck-summary.md}: a short Markdown summary for a pull-request comment: the failures first
 * (crashed, errored, failed; the first facts of each, unfolded), then a table per op (counts by outcome,
 * failing checks), the families that never ran, the warnings folded in {@code <details>}, and the notes: one
 * line per check, with how many ops it noted. Always under {@link #LIMIT} characters (GitHub's comment and step-summary
 * limit is 65,536); what does not fit is cut and the cut is said. Appended to
 * {@code $GITHUB_STEP_SUMMARY} when that variable is set.
 */
public final class MarkdownSummaryFormat extends SingleFileFormat {
  public static final String FILE = "opcheck-summary.md";
  /** Upper bound of the summary's length in characters. */
  public static final int LIMIT = 65_000;
  static final int FACT_LIMIT = 400;
  static final int FACTS_SHOWN = 8;
  private static final Outcomes.Kind[] COLUMNS = {
    Outcomes.Kind.PASSED, Outcomes.Kind.FAILED, Outcomes.Kind.WARNING, Outcomes.Kind.SKIPPED,
    Outcomes.Kind.ERRORED, Outcomes.Kind.CRASHED
  };

  private final UnaryOperator<String> env;

  public MarkdownSummaryFormat() {
    this(System::getenv);
  }

  /** A format reading environment variables through {@code env} (tests pass a map). */
  MarkdownSummaryFormat(UnaryOperator<String> env) {
    super(FILE);
    this.env = env;
  }

  @Override
  public String name() {
    return "markdown";
  }

  @Override
  public Path write(RunReport report, Path dir) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(FILE);
    String text = render(report);
    Files.writeString(file, text, StandardCharsets.UTF_8);
    String summary = env.apply("GITHUB_STEP_SUMMARY");
    if (summary != null && !summary.isBlank()) {
      Files.writeString(Path.of(summary), text + "\n", StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
    return file;
  }

  /** The summary text, at most {@link #LIMIT} characters. */
  public String render(RunReport report) {
    StringBuilder head = new StringBuilder();
    List<Findings> findings = Findings.of(report);
    head.append("## opcheck4j: ").append(verdict(report, findings)).append("\n\n");
    head.append(runLine(report.run())).append("\n\n");
    String mark = report.run().completion().mark();
    if (mark != null) {
      head.append("> **").append(escape(mark)).append("**\n\n");
    }

    Map<String, EnumMap<Outcomes.Kind, Integer>> counts = new LinkedHashMap<>();
    Map<String, Set<String>> failing = new LinkedHashMap<>();
    for (CheckResult r : report.results()) {
      String subject = Outcomes.subject(r);
      counts.computeIfAbsent(subject, k -> new EnumMap<>(Outcomes.Kind.class)).merge(Outcomes.kind(r), 1, Integer::sum);
      if (Outcomes.needsAttention(r) && Outcomes.kind(r) != Outcomes.Kind.WARNING) {
        failing.computeIfAbsent(subject, k -> new LinkedHashSet<>()).add(r.check());
      }
    }
    int budget = LIMIT - 2_000;
    List<String> cuts = new ArrayList<>();
    List<Findings> failures = findings.stream().filter(f -> f.kind() != Outcomes.Kind.WARNING).toList();
    List<Findings> warnings = findings.stream().filter(f -> f.kind() == Outcomes.Kind.WARNING).toList();
    // failures come first and open: a reader of a failed gate looks for them, not for the table
    StringBuilder out = new StringBuilder(head);
    if (!failures.isEmpty()) {
      out.append("### Failures\n\n");
      append(out, failures, true, budget / 2, cuts, "failures");
    }
    StringBuilder table = new StringBuilder("| op |");
    StringBuilder rule = new StringBuilder("|---|");
    List<Outcomes.Kind> columns = columns(report);
    for (Outcomes.Kind k : columns) {
      table.append(' ').append(k.label()).append(" |");
      rule.append("--:|");
    }
    table.append(" failing checks |\n").append(rule).append("---|\n");
    int tableBudget = out.length() + (budget - out.length()) / 2;
    int rowsShown = 0;
    for (var e : counts.entrySet()) {
      StringBuilder row = new StringBuilder("| ").append(code(e.getKey())).append(" |");
      for (Outcomes.Kind k : columns) {
        int n = e.getValue().getOrDefault(k, 0);
        row.append(' ').append(n == 0 ? "" : String.valueOf(n)).append(" |");
      }
      row.append(' ').append(String.join(", ", failing.getOrDefault(e.getKey(), Set.of()).stream()
          .map(MarkdownSummaryFormat::code).toList())).append(" |\n");
      if (out.length() + table.length() + row.length() > tableBudget) {
        break;
      }
      table.append(row);
      rowsShown++;
    }
    if (rowsShown < counts.size()) {
      cuts.add((counts.size() - rowsShown) + " of " + counts.size() + " ops left out of the table");
    }
    out.append(table);
    out.append(coverage(report.coverage()));
    out.append(kernelLines(report.kernelLines()));
    out.append(expectedFailures(report));
    if (!warnings.isEmpty()) {
      out.append("\n### Warnings\n\n");
      append(out, warnings, false, budget, cuts, "warnings");
    }
    out.append(notes(report));
    if (!cuts.isEmpty()) {
      out.append("\n> **Cut to stay under ").append(String.format("%,d", LIMIT)).append(" characters:** ")
          .append(String.join("; ", cuts)).append(". The full results are in `opcheck-report.json` and"
              + " `opcheck-report.html`.\n");
    }
    return out.toString();
  }

  /** The table's columns: notes and the expected-failure outcomes only in a run that has them. */
  private static List<Outcomes.Kind> columns(RunReport report) {
    List<Outcomes.Kind> columns = new ArrayList<>(List.of(COLUMNS));
    for (Outcomes.Kind k : List.of(Outcomes.Kind.NOTE, Outcomes.Kind.EXPECTED_FAILURE, Outcomes.Kind.UNEXPECTED_PASS)) {
      if (report.count(k.outcome()) > 0) {
        columns.add(k);
      }
    }
    return columns;
  }

  /**
   * One line per expected failure (op, check, the devices, the entry's reason and where it is written);
   * empty when none. Unexpected passes are among the failures above.
   */
  private static String expectedFailures(RunReport report) {
    Map<String, List<CheckResult>> groups = new LinkedHashMap<>();
    for (CheckResult r : report.results()) {
      if (r.outcome() == dev.opcheck4j.api.Outcome.EXPECTED_FAILURE) {
        groups.computeIfAbsent(Outcomes.subject(r) + "\u0000" + r.check(), k -> new ArrayList<>()).add(r);
      }
    }
    if (groups.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder("\n### Expected failures\n\n");
    int shown = 0;
    for (List<CheckResult> g : groups.values()) {
      if (sb.length() > LIMIT / 8) {
        sb.append("- (").append(groups.size() - shown).append(" more in `opcheck-report.json`)\n");
        break;
      }
      shown++;
      CheckResult r = g.get(0);
      Set<String> devices = new LinkedHashSet<>();
      g.stream().map(CheckResult::deviceOrNull).filter(java.util.Objects::nonNull).forEach(devices::add);
      sb.append("- ").append(code(r.check())).append(' ').append(code(Outcomes.subject(r)))
          .append(devices.isEmpty() ? "" : " on " + escape(String.join(", ", devices))).append(": ")
          .append(escape(Numbers.clip(r.expectation().reason(), FACT_LIMIT))).append(" (")
          .append(escape(r.expectation().location())).append(")\n");
    }
    return sb.toString();
  }

  /**
   * One line per check that noted ops (a note: stricter than PyTorch, harmless in today's PyTorch), with
   * how many and the first few, in a folded block; empty when there are none. The notes are counted, not
   * shown one by one: a note check may note most ops of a library.
   */
  private static String notes(RunReport report) {
    Map<String, Set<String>> byCheck = new LinkedHashMap<>();
    for (CheckResult r : report.results()) {
      if (r.outcome() == dev.opcheck4j.api.Outcome.NOTE) {
        byCheck.computeIfAbsent(r.check(), k -> new LinkedHashSet<>()).add(Outcomes.subject(r));
      }
    }
    if (byCheck.isEmpty()) {
      return "";
    }
    long ops = report.results().stream().map(CheckResult::opOrNull).filter(java.util.Objects::nonNull).distinct().count();
    StringBuilder sb = new StringBuilder("\n### Notes\n\n<details><summary>").append(byCheck.size())
        .append(byCheck.size() == 1 ? " check" : " checks").append(" noted ops: stricter than PyTorch, harmless in today's"
            + " PyTorch (<code>--strict</code> makes them warnings)</summary>\n\n");
    for (Map.Entry<String, Set<String>> e : byCheck.entrySet()) {
      List<String> named = e.getValue().stream().limit(5).map(MarkdownSummaryFormat::code).toList();
      sb.append("- ").append(code(e.getKey())).append(" on ").append(e.getValue().size()).append(" of ").append(ops)
          .append(ops == 1 ? " op" : " ops").append(" (").append(String.join(", ", named))
          .append(e.getValue().size() > named.size() ? ", ..." : "").append(")\n");
    }
    return sb.append("\n</details>\n").toString();
  }

  /** Appends the findings' blocks while {@code out} stays under {@code budget}; says in {@code cuts} what did not fit. */
  private static void append(StringBuilder out, List<Findings> findings, boolean open, int budget, List<String> cuts,
      String what) {
    int shown = 0;
    for (Findings f : findings) {
      String block = details(f, open);
      if (out.length() + block.length() > budget) {
        break;
      }
      out.append(block);
      shown++;
    }
    if (shown < findings.size()) {
      cuts.add((findings.size() - shown) + " of " + findings.size() + " " + what + " left out");
    }
  }

  /** The families that never ran on some ops, one line each with the commonest reason; empty when none. */
  /** Per op of a library built with coverage: its kernel's lines and branches run, examples alone and with generated inputs. */
  private static String kernelLines(List<dev.opcheck4j.api.KernelLines> all) {
    if (all.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder("\n### Kernel line coverage (gcov)\n\n"
        + "| op | lines, examples | lines, with generated | branches, examples | branches, with generated |\n"
        + "|---|---:|---:|---:|---:|\n");
    for (dev.opcheck4j.api.KernelLines k : all) {
      sb.append("| ").append(escape(k.op())).append(" | ").append(tally(k.examples().linePercent(), k.examples().linesRun(),
          k.examples().lines())).append(" | ").append(tally(k.generated().linePercent(), k.generated().linesRun(),
          k.generated().lines())).append(" | ").append(tally(k.examples().branchPercent(), k.examples().branchesTaken(),
          k.examples().branches())).append(" | ").append(tally(k.generated().branchPercent(), k.generated().branchesTaken(),
          k.generated().branches())).append(" |\n");
    }
    return sb.toString();
  }

  private static String tally(double percent, int part, int whole) {
    return percent + "% (" + part + "/" + whole + ")";
  }

  private static String coverage(Coverage coverage) {
    List<Coverage.Gap> gaps = coverage.gaps();
    if (gaps.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder("\n### Never ran\n\n");
    for (Coverage.Gap g : gaps) {
      List<String> named = g.ops().stream().limit(5).map(MarkdownSummaryFormat::code).toList();
      sb.append("- ").append(g.runtime() == null ? "" : "on " + code(g.runtime()) + ": ").append("**")
          .append(escape(g.family())).append("** never ran on ").append(g.ops().size()).append(" of ")
          .append(g.of()).append(g.of() == 1 ? " op" : " ops").append(" (").append(String.join(", ", named))
          .append(g.ops().size() > named.size() ? ", ..." : "").append("): ")
          .append(escape(Numbers.clip(g.reason(), FACT_LIMIT))).append(" — or `--require ").append(g.family())
          .append("` to fail on this\n");
    }
    return sb.toString();
  }

  private static String verdict(RunReport report, List<Findings> findings) {
    Map<Outcomes.Kind, Integer> byKind = new EnumMap<>(Outcomes.Kind.class);
    for (CheckResult r : report.results()) {
      byKind.merge(Outcomes.kind(r), 1, Integer::sum);
    }
    List<String> parts = new ArrayList<>();
    for (Outcomes.Kind k : Outcomes.Kind.values()) {
      if (byKind.containsKey(k)) {
        parts.add(byKind.get(k) + " " + k.label());
      }
    }
    String mark = findings.stream().anyMatch(f -> f.kind() != Outcomes.Kind.WARNING) ? "❌" : "✅";
    return mark + " " + (parts.isEmpty() ? "no results" : String.join(", ", parts));
  }

  private static String runLine(RunInfo run) {
    List<String> parts = new ArrayList<>();
    parts.add("libtorch " + run.torchVersion() + " (presets " + run.presetsVersion() + ")");
    if (run.toolVersion() != null) {
      parts.add("opcheck4j " + run.toolVersion());
    }
    if (run.seed() != null) {
      parts.add("seed " + run.seed());
    }
    if (run.tries() != null) {
      parts.add(run.tries() + " tries");
    }
    List<String> skipped = new ArrayList<>();
    for (RunInfo.DeviceInfo d : run.devices()) {
      if (!d.runs()) {
        skipped.add(d.name() + " skipped: " + escape(d.skipReason()));
      }
    }
    if (!run.devices().isEmpty()) {
      parts.add("devices " + String.join(", ", run.devicesRun())
          + (skipped.isEmpty() ? "" : " (" + String.join("; ", skipped) + ")"));
    }
    parts.add(Numbers.duration(run.durationMs()));
    return String.join(" · ", parts);
  }

  private static String details(Findings f, boolean open) {
    CheckResult r = f.first();
    StringBuilder sb = new StringBuilder(open ? "<details open><summary>" : "<details><summary>");
    sb.append(f.kind().label().toUpperCase(java.util.Locale.ROOT)).append(" <code>").append(escape(f.check()))
        .append("</code> ").append(escape(f.subject()));
    if (!f.devices().isEmpty()) {
      sb.append(" on ").append(escape(String.join(", ", f.devices())));
    }
    if (f.count() > 1) {
      sb.append(" (").append(f.count()).append(" results)");
    }
    sb.append("</summary>\n\n");
    List<Fact> facts = r.facts();
    StringBuilder body = new StringBuilder(ResultText.facts(facts.subList(0, Math.min(FACTS_SHOWN, facts.size())), "\n",
        (fact, indent) -> TerminalText.visible(Numbers.clip(shown(fact), FACT_LIMIT), true)).substring(facts.isEmpty() ? 0 : 1));
    if (!facts.isEmpty()) {
      body.append('\n');
    }
    if (facts.size() > FACTS_SHOWN) {
      body.append("(").append(facts.size() - FACTS_SHOWN).append(" more facts in the JSON and HTML reports)\n");
    }
    String fence = "```";
    while (body.indexOf(fence) >= 0) {
      fence += "`";
    }
    sb.append(fence).append("text\n").append(body).append(fence).append("\n\n");
    if (r.repro() != null && r.repro().script() != null) {
      sb.append("PyTorch repro: ").append(code(r.repro().script())).append("\n\n");
    }
    sb.append("</details>\n\n");
    return sb.toString();
  }

  /** A fact's value with its numbers rounded as the console rounds them; a rerun line stays exact. */
  private static String shown(Fact fact) {
    return fact.key().equals("rerun") ? fact.value() : NumberText.roundAll(fact.value());
  }

  /** Inline code that survives any content: the longest backtick run decides the delimiter. */
  private static String code(String s) {
    String tick = "`";
    while (s.contains(tick)) {
      tick += "`";
    }
    String body = TerminalText.visible(s).replace("|", "\\|");
    return tick + (body.startsWith("`") || body.endsWith("`") ? " " + body + " " : body) + tick;
  }

  /**
   * HTML-escapes text that goes outside code (GitHub renders inline HTML), its control characters
   * visible (a summary is also read with cat and in CI logs).
   */
  static String escape(String s) {
    if (s == null) {
      return "";
    }
    return TerminalText.visible(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "&#124;");
  }
}
