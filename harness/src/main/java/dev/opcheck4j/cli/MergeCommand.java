package dev.opcheck4j.cli;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ReportReader;
import dev.opcheck4j.api.Rerun;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.api.ResultText;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.run.Expectations;
import dev.opcheck4j.reporting.ReportDirLock;
import dev.opcheck4j.run.ResultsFile;
import dev.opcheck4j.run.plan.ExpectedFailures;
import dev.opcheck4j.run.plan.RunOption;
import dev.opcheck4j.run.plan.RunOptions;
import dev.opcheck4j.run.shard.OpTimings;
import dev.opcheck4j.run.shard.ShardTimes;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.spec.SpecException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** {@code merge}: the result files of several runs (the shards of one) as the report the unsharded run writes. */
final class MergeCommand implements Command {
  @Override
  public String name() {
    return "merge";
  }

  @Override
  public String summary() {
    return "Merges the report dirs of the shards of one run into the report the unsharded run writes.";
  }

  @Override
  public String synopsis() {
    return "merge --report-dir OUT [--allow-incomplete] [--expected-failures FILE] DIR...";
  }

  @Override
  public List<RunOption<?>> options() {
    return List.of(RunOptions.REPORT_DIR, RunOptions.ALLURE, RunOptions.ALLOW_INCOMPLETE, RunOptions.EXPECTED_FAILURES,
        RunOptions.TAGS, RunOptions.VERBOSE);
  }

  @Override
  public int operands() {
    return Integer.MAX_VALUE;
  }

  @Override
  public ExitCode run(Arguments args, Session s) throws Exception {
    List<Path> dirs = args.operands().stream().map(Path::of).toList();
    Path reportDir = args.get(RunOptions.REPORT_DIR);
    if (reportDir == null || dirs.isEmpty()) {
      throw new UsageException("merge needs --report-dir OUT and at least one DIR (the --report-dir of each shard)");
    }
    try (ReportDirLock lock = CheckCommand.lock(reportDir, args.commandLine(), s)) {
      return merge(dirs, reportDir, args, s);
    }
  }

  private ExitCode merge(List<Path> dirs, Path reportDir, Arguments args, Session s) throws Exception {
    RunOutcome merged;
    try {
      merged = dirs.stream().allMatch(d -> !Files.exists(d.resolve(ResultsFile.NAME))
          && Files.exists(d.resolve("opcheck-report.json"))) ? mergeReports(dirs) : ResultsFile.merge(dirs);
    } catch (NoSuchFileException e) {
      throw new UsageException("no such directory: " + e.getFile());
    } catch (IOException e) {
      throw new UsageException(e.getMessage());
    }
    List<RunInfo.Incomplete> incomplete = merged.report().run().completion().incomplete();
    for (RunInfo.Incomplete i : incomplete) {
      s.err().println("opcheck: " + i.shard() + " is incomplete (its run did not finish: no end line in its "
          + ResultsFile.NAME + "); missing " + (i.missingOps().isEmpty() ? "no op, only its end"
              : i.missingOps().size() + (i.missingOps().size() == 1 ? " op: " : " ops: ") + String.join(", ", i.missingOps())));
    }
    if (!incomplete.isEmpty() && !args.get(RunOptions.ALLOW_INCOMPLETE)) {
      s.err().println("opcheck: nothing merged: " + incomplete.size() + " of " + dirs.size()
          + " shards are incomplete (rerun them, or merge with --allow-incomplete to mark the report incomplete)");
      return ExitCode.CHECK_FAILED;
    }
    RunReport report = merged.report();
    if (args.has(RunOptions.EXPECTED_FAILURES)) {
      try {
        report = judged(report, args);
      } catch (SpecException e) {
        e.lines().forEach(l -> s.err().println("opcheck: " + l));
        return ExitCode.INPUT_ERROR;
      }
    }
    for (var r : report.results()) {
      if (args.get(RunOptions.VERBOSE) || r.outcome().failsRun() || r.outcome() == Outcome.ERRORED
          || r.outcome() == Outcome.WARNING) {
        s.out().println(HumanText.render(r, r.deviceOrNull() == null ? List.of() : List.of(r.device()), reportDir != null));
      }
    }
    // the rerun line is rendered from each result's repro, as the unsharded run renders it
    report = new RunReport(report.run().withInvocation(args.commandLine(), null), report.checks(),
        report.results().stream().map(x -> x.withRerun(Rerun.CLI)).toList());
    ExitCode code = RunSummary.finish(report, merged.inputErrors(), reportDir, args.get(RunOptions.ALLURE), s);
    // each shard's predicted and actual time, and the timings the next sharded run packs by
    List<String> shards = ShardTimes.table(dirs.stream().map(ShardTimes::read).flatMap(java.util.Optional::stream).toList());
    shards.forEach(s.out()::println);
    String page = s.env().apply("GITHUB_STEP_SUMMARY");
    if (!shards.isEmpty() && page != null && !page.isBlank()) {
      Files.writeString(Path.of(page), "### Shards: predicted and actual time\n\n" + String.join("\n",
          shards.stream().map(l -> "- " + l).toList()) + "\n\n", java.nio.charset.StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }
    Path timings = OpTimings.of(report.results(), reportDir.toString()).write(reportDir);
    s.out().println("timings for the next --shard run: --timings " + timings);
    return code;
  }

  /**
   * The merged results judged by {@code --expected-failures} as the unsharded run judges them (the
   * shards' results files keep the checks' own verdicts); its entries must be about the ops' namespaces.
   */
  private static RunReport judged(RunReport report, Arguments args) throws SpecException {
    List<RunInfo.Input> inputs = report.run().inputs();
    ExpectedFailures active = ExpectedFailures.read(args.get(RunOptions.EXPECTED_FAILURES)).activeIn(
        inputs.stream().filter(i -> i.spec() != null).map(i -> Path.of(i.spec())).toList(), args.all(RunOptions.TAGS));
    java.util.Set<String> namespaces = new java.util.TreeSet<>();
    report.results().stream().filter(r -> r.library() == null).forEach(r -> namespaces.add(ExpectedFailures.namespace(r.op())));
    active.requireNamespaces(namespaces);
    String spec = inputs.size() == 1 ? inputs.get(0).spec() : null;
    return new RunReport(report.run(), report.checks(), Expectations.judge(report.results(), active, spec));
  }

  /**
   * Report dirs that hold only {@code opcheck-report.json} (written before results files existed, or
   * copied without them, or those of a run on several runtimes, whose results files are per runtime): each
   * is read by the {@link ReportReader} of the reports module, which reads schema versions 1 and 2 and
   * rejects others with a line naming the file and version.
   */
  private static RunOutcome mergeReports(List<Path> dirs) throws UsageException, IOException {
    ReportReader reader = ServiceLoader.load(ReportReader.class).findFirst()
        .orElseThrow(() -> new IllegalStateException("no report reader on the classpath (opcheck4j-reports missing)"));
    List<CheckResult> results = new ArrayList<>();
    List<List<CheckResult>> perDir = new ArrayList<>();
    RunReport first = null;
    long duration = 0;
    for (Path dir : dirs) {
      RunReport r;
      try {
        r = reader.read(dir.resolve("opcheck-report.json"));
      } catch (ReportReader.UnsupportedReportException e) {
        throw new UsageException(e.getMessage());
      }
      first = first == null ? r : first;
      duration = Math.max(duration, r.durationMs());
      results.addAll(r.results());
      perDir.add(r.results());
    }
    List<String> runtimes = RuntimeShards.of(dirs);
    if (!runtimes.isEmpty()) {
      // the shards of a run on several runtimes: in the unsharded run's order, not one shard after the other
      results = RuntimeShards.ordered(dirs, runtimes, perDir);
    }
    RunReport report = new RunReport(first.run().withDuration(duration), first.checks(), results);
    return new RunOutcome(report, List.of(), results.stream().map(CheckResult::op).distinct().toList(), List.of());
  }
}
