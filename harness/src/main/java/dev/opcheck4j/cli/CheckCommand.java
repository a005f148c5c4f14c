package dev.opcheck4j.cli;

import static dev.opcheck4j.run.plan.RunOptions.ACCEPT;
import static dev.opcheck4j.run.plan.RunOptions.ALLURE;
import static dev.opcheck4j.run.plan.RunOptions.BASELINE;
import static dev.opcheck4j.run.plan.RunOptions.CACHE;
import static dev.opcheck4j.run.plan.RunOptions.NO_CACHE;
import static dev.opcheck4j.run.plan.RunOptions.PACKAGES;
import static dev.opcheck4j.run.plan.RunOptions.CHECKS;
import static dev.opcheck4j.run.plan.RunOptions.DEVICES;
import static dev.opcheck4j.run.plan.RunOptions.EXPECTED_FAILURES;
import static dev.opcheck4j.run.plan.RunOptions.REPRO;
import static dev.opcheck4j.run.plan.RunOptions.MIN_LINE_COVERAGE;
import static dev.opcheck4j.run.plan.RunOptions.JOBS;
import static dev.opcheck4j.run.plan.RunOptions.JUNIT_XML;
import static dev.opcheck4j.run.plan.RunOptions.LIBRARIES;
import static dev.opcheck4j.run.plan.RunOptions.OPS;
import static dev.opcheck4j.run.plan.RunOptions.REPORT_DIR;
import static dev.opcheck4j.run.plan.RunOptions.REQUIRE;
import static dev.opcheck4j.run.plan.RunOptions.RUNTIMES;
import static dev.opcheck4j.run.plan.RunOptions.SEED;
import static dev.opcheck4j.run.plan.RunOptions.SHARD;
import static dev.opcheck4j.run.plan.RunOptions.TIMINGS;
import static dev.opcheck4j.run.plan.RunOptions.SPECS;
import static dev.opcheck4j.run.plan.RunOptions.TAGS;
import static dev.opcheck4j.run.plan.RunOptions.TIMEOUT;
import static dev.opcheck4j.run.plan.RunOptions.TRIES;
import static dev.opcheck4j.run.plan.RunOptions.ALL_TRIES;
import static dev.opcheck4j.run.plan.RunOptions.VERBOSE;
import static dev.opcheck4j.run.plan.RunOptions.STRICT;
import static dev.opcheck4j.run.plan.RunOptions.WARNINGS_AS_ERRORS;

import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.Rerun;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.builtin.CheckCatalog;
import dev.opcheck4j.run.accept.AcceptMode;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.reporting.ReportDirLock;
import dev.opcheck4j.reporting.WorkflowAnnotations;
import dev.opcheck4j.run.ResultsFile;
import dev.opcheck4j.run.plan.ExpectedFailures;
import dev.opcheck4j.run.plan.RunOption;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.plan.RunTarget;
import dev.opcheck4j.run.plan.ShardChoice;
import dev.opcheck4j.run.plan.Versions;
import dev.opcheck4j.spec.SpecException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** {@code check}: every check on the ops of spec files or libraries, on every device; reports and an exit code. */
final class CheckCommand implements Command {
  static final List<RunOption<?>> OPTIONS = List.of(SPECS, LIBRARIES, OPS, CHECKS, REQUIRE, DEVICES, RUNTIMES, SEED, TRIES, ALL_TRIES, JOBS, TIMEOUT,
      SHARD, TIMINGS, REPORT_DIR, ALLURE, JUNIT_XML, BASELINE, PACKAGES, WARNINGS_AS_ERRORS, STRICT, EXPECTED_FAILURES, TAGS, ACCEPT, REPRO, MIN_LINE_COVERAGE, VERBOSE,
      CACHE, NO_CACHE);

  @Override
  public String name() {
    return "check";
  }

  @Override
  public String summary() {
    return "Checks every op a spec file (or a library) names, on every device, and writes the reports.";
  }

  @Override
  public String synopsis() {
    return "check (--spec FILE | --library LIB)... [options]";
  }

  @Override
  public List<RunOption<?>> options() {
    return OPTIONS;
  }

  @Override
  public ExitCode run(Arguments args, Session s) throws Exception {
    if (args.all(LIBRARIES).isEmpty() && args.all(SPECS).isEmpty()) {
      throw new UsageException("check needs --spec FILE or --library LIB");
    }
    if (args.has(JUNIT_XML)) {
      return new JUnitXmlRun(s).run(args);
    }
    RunRequest.Builder request = RunRequest.builder().ops(args.all(OPS)).checks(args.all(CHECKS)).require(args.all(REQUIRE))
        .devices(args.all(DEVICES)).runtimes(args.has(RUNTIMES) ? args.get(RUNTIMES) : List.of()).seed(args.get(SEED)).tries(args.get(TRIES)).allTries(args.get(ALL_TRIES)).jobs(args.get(JOBS))
        .timeout(args.get(TIMEOUT)).reportDir(args.get(REPORT_DIR))
        .severity(new SeverityPolicy(args.get(WARNINGS_AS_ERRORS), args.get(STRICT))).baseline(args.get(BASELINE)).packages(args.all(PACKAGES))
        .cache(args.get(NO_CACHE) ? null : args.get(CACHE)).repro(args.get(REPRO))
        .minLineCoverage(args.get(MIN_LINE_COVERAGE));
    args.all(SPECS).forEach(request::spec);
    args.all(LIBRARIES).forEach(request::library);
    try {
      BuiltinChecks.select(args.all(CHECKS));
      BuiltinChecks.select(args.all(REQUIRE));
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    ShardChoice shard;
    try {
      shard = ShardChoice.of(args.has(SHARD) ? Optional.of(args.get(SHARD)) : Optional.empty(),
          Optional.ofNullable(args.get(TIMINGS)), s.env());
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    shard.notes().forEach(n -> s.err().println("opcheck: note: " + n));
    shard.acknowledge();
    request.shard(shard.shard());
    try {
      request.expectedFailures(expectedFailures(args)).tags(args.all(TAGS));
    } catch (SpecException e) {
      return inputError(e, s);
    }
    RunRequest r = request.build();
    Path dir = args.get(REPORT_DIR);
    boolean fresh = dir != null && !Files.exists(dir);
    ExitCode code = null;
    try {
      code = run(r, args, s);
      return code;
    } finally {
      // a run that never started (bad input, exit 2) leaves no report dir behind: the lock made it
      if (fresh && (code == null || code == ExitCode.INPUT_ERROR) && Files.isDirectory(dir)) {
        try (var left = Files.list(dir)) {
          if (left.allMatch(f -> f.getFileName().toString().equals(ReportDirLock.NAME))) {
            Files.deleteIfExists(dir.resolve(ReportDirLock.NAME));
            Files.delete(dir);
          }
        }
      }
    }
  }

  private ExitCode run(RunRequest r, Arguments args, Session s) throws Exception {
    try (ReportDirLock lock = lock(args.get(REPORT_DIR), args.commandLine(), s)) {
      boolean terminal = Console.interactive();
      Console console = new Console(s.out(), terminal, terminal && Console.colourTerminal(System.getenv()), args.get(VERBOSE),
          args.get(REPORT_DIR) != null, 0);
      console.header(header(r));
      Path dir = args.get(REPORT_DIR);
      List<ReportFormat> formats = dir == null ? List.of() : RunSummary.formats(dir, args.get(ALLURE));
      // formats with a file per result (Allure) write them while the run goes on
      List<ReportFormat.Streaming> streams = new ArrayList<>();
      for (ReportFormat f : formats) {
        ReportFormat.Streaming stream = f.stream(dir, CheckCatalog.builtin(), x -> x.withRerun(Rerun.CLI));
        if (stream != null) {
          streams.add(stream);
        }
      }
      RunListener listener = console;
      for (ReportFormat.Streaming stream : streams) {
        listener = RunListener.both(listener, stream);
      }
      RunOutcome outcome = null;
      RunRequest read = r;
      try {
        read = Launcher.read(r); // each spec read once: the run and the annotations take it from here
        outcome = Launcher.execute(read, listener, s.stop());
      } catch (ResultsFile.NoSpace e) {
        throw new UsageException(e.getMessage());
      } catch (SpecException e) {
        return inputError(e, s);
      } finally {
        console.finish();
        if (outcome == null) {
          streams.forEach(ReportFormat.Streaming::abandon); // no report: no file of this run stays
        }
      }
      RunReport report = outcome.report();
      report = new RunReport(report.run().withInvocation(args.commandLine(), null), report.checks(),
          report.results().stream().map(x -> x.withRerun(Rerun.CLI)).toList()).withKernelLines(report.kernelLines());
      ExitCode code = RunSummary.finish(report, outcome.inputErrors(), dir, formats, s);
      if (outcome.shard() != null) {
        if (outcome.shard().byTime()) { // by index, the note before the run said how it was split
          s.out().println(outcome.shard().split());
        }
        s.out().println(outcome.shard().line());
      }
      RunSummary.printRuntimes(outcome.runtimes(), s.out());
      annotate(report, read.targets(), s);
      return args.has(ACCEPT) ? accept(args.get(ACCEPT), report, code, s) : code;
    }
  }

  /** Each located line of a bad input, and how many when several: nothing ran. */
  private static ExitCode inputError(SpecException e, Session s) {
    for (String line : e.lines()) {
      s.err().println("opcheck: " + line);
    }
    if (e.lines().size() > 1) {
      s.err().println("opcheck: " + e.lines().size() + " spec errors; no check ran and no report was written");
    }
    return ExitCode.INPUT_ERROR;
  }

  /**
   * The expected failures the run is judged by: {@code --accept FILE}'s (none while it does not exist),
   * else {@code --expected-failures FILE}'s.
   */
  private static ExpectedFailures expectedFailures(Arguments args) throws SpecException, UsageException {
    Path accept = args.get(ACCEPT);
    Path listed = args.get(EXPECTED_FAILURES);
    if (accept != null && listed != null && !accept.toAbsolutePath().normalize().equals(listed.toAbsolutePath().normalize())) {
      throw new UsageException("--accept FILE reads the expected failures from FILE and rewrites it: give no other"
          + " --expected-failures");
    }
    Path file = accept != null ? accept : listed;
    return file == null || accept != null && !Files.exists(file) ? ExpectedFailures.NONE : ExpectedFailures.read(file);
  }

  /**
   * Accept mode: rewrites {@code file} so that this run would pass and prints its diff; the run's code
   * when nothing changed, else a failed check (or the run's worse code).
   */
  static ExitCode accept(Path file, RunReport report, ExitCode code, Session s) throws IOException {
    if (report.run().completion().interrupted() != null) {
      s.err().println("opcheck: accept: " + file + " not written: the run was interrupted");
      return code;
    }
    AcceptMode accepted;
    try {
      accepted = AcceptMode.of(file, report.results());
    } catch (SpecException e) {
      return inputError(e, s);
    }
    accepted.write();
    accepted.diff().forEach(s.out()::println);
    accepted.unlisted().forEach(u -> s.err().println("opcheck: accept: " + u));
    s.out().println(accepted.summary());
    if (!accepted.changed()) {
      return code;
    }
    return code == ExitCode.OK ? ExitCode.CHECK_FAILED : code;
  }

  /**
   * Under GitHub Actions, the failures as annotations at their spec lines ({@link WorkflowAnnotations}), each
   * spec named as the command line gave it ({@code targets}' spec files, with the specs as the run read them).
   */
  static void annotate(RunReport report, List<RunTarget> targets, Session s) {
    if (WorkflowAnnotations.wanted(s.env())) {
      List<RunTarget> read = targets.stream().filter(t -> t.read() != null).toList();
      java.util.Map<Path, Path> given = new java.util.HashMap<>();
      read.forEach(t -> given.putIfAbsent(t.read().file().file(), t.spec()));
      WorkflowAnnotations.of(read.stream().map(RunTarget::read).toList(), p -> given.getOrDefault(p, p))
          .lines(report.results()).forEach(s.out()::println);
    }
  }

  /**
   * The report dir, locked for this run before anything runs (one run per dir, and one that can be
   * written); null when the run writes no reports.
   */
  static ReportDirLock lock(Path dir, String commandLine, Session s) throws UsageException {
    if (dir == null) {
      return null;
    }
    try {
      ReportDirLock lock = ReportDirLock.acquire(dir, commandLine);
      if (lock.note() != null) {
        s.err().println("opcheck: note: " + lock.note());
      }
      return lock;
    } catch (ReportDirLock.Refused e) {
      throw new UsageException(e.getMessage());
    }
  }

  /** Versions, seed, tries, workers; the devices follow when the run knows them ({@link Console#runStarted}). */
  private static List<String> header(RunRequest r) {
    Versions v = Versions.current();
    List<dev.opcheck4j.run.plan.LibtorchRuntime> on = r.runtimes().stream().map(dev.opcheck4j.run.plan.Runtimes::find).toList();
    String torch = on.isEmpty() ? v.torch() : String.join(", ", on.stream().map(dev.opcheck4j.run.plan.LibtorchRuntime::torch).toList());
    String presets = on.isEmpty() ? v.presets()
        : String.join(", ", on.stream().map(dev.opcheck4j.run.plan.LibtorchRuntime::presets).distinct().toList());
    return List.of("opcheck4j " + v.tool() + " · libtorch " + torch + " (JavaCPP presets " + presets + ")",
        "seed " + r.seed() + ", " + r.tries() + " generated inputs per op and device, "
        + r.jobs() + (r.jobs() == 1 ? " worker" : " workers") + (r.shard().count() > 1 ? ", shard " + r.shard() : ""));
  }
}
