package dev.opcheck4j.cli;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.bench.Benchmarks;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.ReportGenerator;
import dev.opcheck4j.api.ReportReader;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.checks.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.ExampleSearch;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.LibraryInfo;
import dev.opcheck4j.api.ResultText;
import dev.opcheck4j.run.ResultsFile;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.RunPlan;
import dev.opcheck4j.run.RunRequest;
import dev.opcheck4j.run.Runner;
import dev.opcheck4j.run.Versions;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.SpecSkeleton;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.LibraryLoadException;
import dev.opcheck4j.torch.SchemaBaseline;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** The {@code ./opcheck} command line: {@code list}, {@code check}, {@code demo}, {@code report} and {@code bench}. */
public final class Main {
  static final String USAGE =
      """
      usage: opcheck list --library LIB
             opcheck checks
             opcheck init --library LIB [--out FILE] [--seed N]
             opcheck check (--spec FILE | --library LIB)... [--op NAME]... [--check ID|FAMILY]...
                           [--device cpu|meta|cuda]... [--seed N] [--tries N] [--report-dir DIR]
                           [--warnings-as-errors] [--verbose] [--jobs N] [--timeout SECONDS] [--shard I/N]
                           [--junit-xml DIR]
             opcheck merge --report-dir OUT DIR...      (the report dirs of the shards of one run)
             opcheck model MODEL.pt [--library LIB]... [--spec FILE] [--input VALUE]... [--seed N]
             opcheck baseline --library LIB --out FILE
             opcheck demo [--report-dir DIR] [--verbose]
             opcheck report allure DIR        Allure HTML from DIR/allure-results into DIR/allure-report
             opcheck bench gradcheck|generation|isolation|examples
             opcheck --version | COMMAND --help
      exit codes: 0 all passed, 1 a check failed, 2 usage/spec/library error, 3 harness error""";

  static final String CHECK_HELP =
      """
      usage: opcheck check (--spec FILE | --library LIB)... [options]
      Checks every op a spec file (or a library) names, on every device, and writes the reports.
        --spec FILE        a spec file: library, ops, examples (docs/spec.md); repeatable
        --library LIB      every op a shared library registers, without examples; repeatable
        --op NAME          only this op (ns::name); repeatable
        --check ID|FAMILY  only these checks (./opcheck checks lists them); repeatable
        --device DEVICE    cpu, meta or cuda; repeatable (default: all, cuda skipped without a GPU)
        --seed N           seed of everything drawn at random (default 20261122)
        --tries N          generated inputs per op and device (default 100; 0: examples only)
        --jobs N           worker processes at once
        --timeout SECONDS  deadline of one unit of work (default 60)
        --shard I/N        check part I of N of the ops
        --report-dir DIR   write opcheck-report.json, .html, opcheck-summary.md and allure-results there
        --junit-xml DIR    run the specs as JUnit Platform tests and write JUnit XML there
        --warnings-as-errors  findings of warning checks fail the run
        --verbose          print every result, not only findings
      exit codes: 0 all passed, 1 a check failed, 2 usage/spec/library error, 3 harness error""";

  /** Commands, for "did you mean". */
  static final List<String> COMMANDS = List.of("list", "checks", "check", "init", "model", "baseline", "demo", "merge", "report", "bench", "help");

  private final PrintStream out;
  private final PrintStream err;
  private final Path home;

  /** A CLI writing to {@code out}/{@code err}, with {@code home} the repository root (for demo). */
  public Main(PrintStream out, PrintStream err, Path home) {
    this.out = out;
    this.err = err;
    this.home = home;
  }

  public static void main(String[] args) {
    Path home = Path.of(System.getProperty("opcheck4j.home", ".")).toAbsolutePath().normalize();
    int code = new Main(System.out, System.err, home).run(args).code();
    System.out.flush();
    System.exit(code);
  }

  /** Runs one command line and returns its exit code; never throws. */
  public ExitCode run(String... args) {
    try {
      if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help")) {
        out.println(USAGE);
        return args.length == 0 ? ExitCode.INPUT_ERROR : ExitCode.OK;
      }
      if (args[0].equals("--version") || args[0].equals("-V")) {
        return version();
      }
      List<String> rest = List.of(args).subList(1, args.length);
      if (rest.contains("--help") || rest.contains("-h")) {
        out.println(args[0].equals("check") || args[0].equals("demo") ? CHECK_HELP : USAGE);
        return ExitCode.OK;
      }
      if (!COMMANDS.contains(args[0])) {
        if (args[0].startsWith("-")) {
          throw new UsageException("unknown option '" + args[0] + "'"
              + Suggestions.didYouMean(args[0], List.of("--version", "--help")) + " (see --help)");
        }
        String hint = Suggestions.didYouMean(args[0], COMMANDS);
        throw new UsageException("unknown command '" + args[0] + "'"
            + (hint.isEmpty() ? "; expected list, checks, check, init, model, baseline, demo, merge, report or bench" : hint));
      }
      if (args[0].equals("model")) {
        return model(args);
      }
      if (args[0].equals("report")) {
        return report(rest);
      }
      Options o = args[0].equals("bench") ? new Options() : args[0].equals("merge") ? Options.parseMerge(rest)
          : Options.parse(rest);
      o.commandLine = commandLine(args);
      return switch (args[0]) {
        case "list" -> list(o);
        case "check" -> check(o);
        case "checks" -> checks(o);
        case "init" -> init(o);
        case "demo" -> demo(o);
        case "bench" -> bench(args);
        case "baseline" -> baseline(o);
        case "merge" -> merge(o);
        default -> throw new IllegalStateException("unhandled command " + args[0]);
      };
    } catch (UsageException | LibraryLoadException | SpecException e) {
      err.println("opcheck: " + e.getMessage());
      return ExitCode.INPUT_ERROR;
    } catch (Exception | LinkageError e) {
      err.println("opcheck: harness error: " + e);
      if (System.getenv("OPCHECK4J_DEBUG") != null) {
        e.printStackTrace(err);
      }
      return ExitCode.HARNESS_ERROR;
    }
  }

  private ExitCode version() {
    Versions v = Versions.current();
    out.println("opcheck4j " + v.tool());
    out.println("libtorch " + v.torch() + " (JavaCPP presets " + v.presets() + ")");
    return ExitCode.OK;
  }

  private ExitCode report(List<String> args) throws UsageException, IOException, InterruptedException {
    List<String> names = ServiceLoader.load(ReportGenerator.class).stream().map(p -> p.get().name()).toList();
    if (args.size() != 2 || !names.contains(args.get(0))) {
      String typed = args.isEmpty() ? "" : args.get(0);
      throw new UsageException("report takes NAME DIR with NAME one of " + String.join(", ", names)
          + (typed.isEmpty() || names.contains(typed) ? "" : Suggestions.didYouMean(typed, names))
          + " (e.g. ./opcheck report allure reports/out)");
    }
    for (ReportGenerator g : ServiceLoader.load(ReportGenerator.class)) {
      if (g.name().equals(args.get(0))) {
        try {
          out.println("report (" + g.name() + "): " + g.generate(Path.of(args.get(1)), home));
        } catch (IllegalArgumentException e) {
          throw new UsageException(e.getMessage());
        }
      }
    }
    return ExitCode.OK;
  }

  /** The command line as typed, for the reports' run block (arguments with spaces quoted). */
  static String commandLine(String[] args) {
    StringBuilder sb = new StringBuilder("./opcheck");
    for (String a : args) {
      sb.append(' ').append(a.isEmpty() || a.matches(".*[\\s'\"$`\\\\].*") ? "'" + a.replace("'", "'\\''") + "'" : a);
    }
    return sb.toString();
  }

  private ExitCode list(Options o) throws UsageException, LibraryLoadException, SpecException {
    if (o.libraries.size() != 1 || !o.specs.isEmpty()) {
      throw new UsageException("list takes exactly one --library LIB");
    }
    LibraryInfo lib = Launcher.describe(o.libraries.get(0));
    for (LibraryInfo.Op op : lib.ops()) {
      out.println(op.name() + "\t" + op.schema() + "\t[" + String.join(", ", op.dispatchKeys()) + "]");
    }
    for (String dangling : lib.dangling()) {
      out.println(dangling + "\t(no schema: implemented but never defined)");
    }
    return ExitCode.OK;
  }

  private ExitCode model(String[] args) throws UsageException, LibraryLoadException, SpecException {
    if (args.length < 2 || args[1].startsWith("--")) {
      throw new UsageException("model needs a model file: opcheck model MODEL.pt [--library LIB]");
    }
    Options o = Options.parse(List.of(args).subList(2, args.length));
    List<Path> libraries = new ArrayList<>(o.libraries);
    for (Path spec : o.specs) {
      libraries.add(dev.opcheck4j.spec.SpecReader.read(spec).library());
    }
    return new ModelCommand(out, err).run(Path.of(args[1]), libraries, o.inputs, o.seed);
  }

  private ExitCode baseline(Options o) throws UsageException, LibraryLoadException, SpecException, IOException {
    if (o.libraries.size() != 1 || o.out == null) {
      throw new UsageException("baseline takes exactly one --library LIB and --out FILE");
    }
    // loading the library runs its code: the worker records the baseline, this process writes it
    SchemaBaseline baseline = Launcher.baseline(o.libraries.get(0));
    baseline.write(o.out);
    out.println("baseline of " + baseline.library() + ": " + baseline.ops().size() + " ops written to " + o.out);
    return ExitCode.OK;
  }

  /** Merges the result files of several runs (the shards of one) into the report the unsharded run writes. */
  private ExitCode merge(Options o) throws UsageException, IOException {
    if (o.reportDir == null || o.mergeDirs.isEmpty()) {
      throw new UsageException("merge needs --report-dir OUT and at least one DIR (the --report-dir of each shard)");
    }
    RunOutcome merged;
    try {
      merged = o.mergeDirs.stream().allMatch(d -> !Files.exists(d.resolve(ResultsFile.NAME))
          && Files.exists(d.resolve("opcheck-report.json"))) ? mergeReports(o.mergeDirs) : ResultsFile.merge(o.mergeDirs);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new UsageException("no such directory: " + e.getFile());
    } catch (IOException e) {
      throw new UsageException(e.getMessage());
    }
    for (var r : merged.report().results()) {
      if (o.verbose || r.outcome() != Outcome.PASSED && r.outcome() != Outcome.SKIPPED) {
        out.println(ResultText.render(r));
      }
    }
    RunReport report = merged.report();
    report = new RunReport(report.run().withInvocation(o.commandLine, null), report.checks(), report.results());
    return finish(report, merged.inputErrors(), o.reportDir);
  }

  /**
   * Report dirs that hold only {@code opcheck-report.json} (written before results files existed, or
   * copied without them): each is read by the {@link ReportReader} of the reports module, which reads
   * schema versions 1 and 2 and rejects others with a line naming the file and version.
   */
  private static RunOutcome mergeReports(List<Path> dirs) throws UsageException, IOException {
    ReportReader reader = ServiceLoader.load(ReportReader.class).findFirst()
        .orElseThrow(() -> new IllegalStateException("no report reader on the classpath (opcheck4j-reports missing)"));
    List<CheckResult> results = new ArrayList<>();
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
    }
    RunReport report = new RunReport(first.run().withDuration(duration), first.checks(), results);
    return new RunOutcome(report, List.of(), results.stream().map(CheckResult::op).distinct().toList(), List.of());
  }

  /** Every built-in check, in registry order, with its severity and summary (from its metadata). */
  private ExitCode checks(Options o) throws UsageException {
    if (!o.specs.isEmpty() || !o.libraries.isEmpty()) {
      throw new UsageException("checks takes no options; it lists every built-in check");
    }
    int width = BuiltinChecks.all().stream().mapToInt(c -> c.id().length()).max().orElse(2);
    out.printf("%-" + width + "s  %-8s %-10s %s%n", "check", "severity", "scope", "summary");
    for (Check c : BuiltinChecks.all()) {
      CheckInfo i = c.info();
      boolean alsoGenerated = i.generated() && i.scope() != CheckInfo.Scope.GENERATED;
      out.printf("%-" + width + "s  %-8s %-10s %s%s%n", i.id(), i.severity().label(),
          i.scope().name().toLowerCase(java.util.Locale.ROOT), i.summary(), alsoGenerated ? " (also on generated inputs)" : "");
    }
    return ExitCode.OK;
  }

  /**
   * A spec skeleton (YAML) for every op of a library, with an example synthesized from each schema
   * and accepted by the CPU kernel, or a comment saying why none was found.
   */
  private ExitCode init(Options o) throws UsageException, LibraryLoadException, SpecException, IOException {
    if (o.libraries.size() != 1 || !o.specs.isEmpty()) {
      throw new UsageException("init takes exactly one --library LIB (and --out FILE to write the spec to a file)");
    }
    // the search calls the kernels: it runs in a worker, like every other call
    Launcher.Synthesized lib = Launcher.synthesize(o.libraries.get(0), o.seed);
    List<SpecSkeleton.Entry> entries = new ArrayList<>();
    int found = 0;
    for (int k = 0; k < lib.library().ops().size(); k++) {
      LibraryInfo.Op op = lib.library().ops().get(k);
      ExampleSearch.Found f = lib.found().get(k);
      found += f.example().isPresent() ? 1 : 0;
      entries.add(new SpecSkeleton.Entry(op.name(), op.schema().toString(), f.example(), f.note()));
    }
    Path libPath = lib.library().path().toAbsolutePath().normalize();
    String library = libPath.toString();
    if (o.out != null) {
      Path folder = o.out.toAbsolutePath().normalize().getParent();
      library = folder.relativize(libPath).toString();
    }
    String text = SpecSkeleton.yaml("opcheck4j spec for " + libPath.getFileName() + ", written by ./opcheck init (seed "
        + o.seed + ").\nEach example was synthesized from the op's schema and accepted by the cpu kernel: edit them,"
        + " add more, and see docs/spec.md.", library, entries);
    if (o.out == null) {
      out.print(text);
    } else {
      Files.writeString(o.out, text);
      out.println("wrote " + o.out + ": " + entries.size() + " ops, " + found + " with an example");
    }
    return ExitCode.OK;
  }

  private ExitCode bench(String[] args) throws Exception {
    Benchmarks b = new Benchmarks(out, home.resolve("native-ops/target/lib"));
    List<String> what = args.length > 1 ? List.of(args).subList(1, args.length) : List.of("gradcheck", "generation");
    for (String w : what) {
      switch (w) {
        case "gradcheck" -> b.gradcheck();
        case "generation" -> b.generation(home.resolve("fixtures/specs"));
        case "isolation" -> b.isolation(home.resolve("fixtures/specs"), 30, 400);
        case "examples" -> b.examples(home.resolve("fixtures/specs"), 200);
        default -> throw new UsageException("unknown benchmark '" + w
            + "'; expected gradcheck, generation, isolation or examples");
      }
    }
    return ExitCode.OK;
  }

  private ExitCode demo(Options o) throws UsageException, LibraryLoadException, SpecException, IOException {
    Path specs = home.resolve("fixtures/specs");
    List<Path> demoSpecs = List.of(specs.resolve("my_ops.json"), specs.resolve("good_ops.json"));
    Options run = o.withSpecs(demoSpecs);
    if (run.reportDir == null) {
      run.reportDir = home.resolve("reports/out");
    }
    return check(run);
  }

  private ExitCode check(Options o) throws UsageException, LibraryLoadException, SpecException, IOException {
    if (o.libraries.isEmpty() && o.specs.isEmpty()) {
      throw new UsageException("check needs --spec FILE or --library LIB");
    }
    if (o.junitXml != null) {
      return new JUnitXmlRun(out, err).run(o);
    }
    RunRequest.Builder request = RunRequest.builder().ops(o.ops).checks(o.checks).devices(o.devices).seed(o.seed)
        .tries(o.tries).timeout(o.timeout).shard(o.shard).reportDir(o.reportDir)
        .warningsAsErrors(o.warningsAsErrors).baseline(o.baseline);
    o.specs.forEach(request::spec);
    o.libraries.forEach(request::library);
    if (o.jobs > 0) {
      request.jobs(o.jobs);
    }
    try {
      BuiltinChecks.select(o.checks);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    RunRequest r = request.build();
    printHeader(r);
    Console console = new Console(out, Console.interactive(), o.verbose, plannedOps(o));
    RunOutcome outcome;
    try {
      outcome = Launcher.execute(r, console);
    } finally {
      console.finish();
    }
    RunReport report = outcome.report();
    report = new RunReport(report.run().withInvocation(o.commandLine, null), report.checks(),
        report.results().stream().map(x -> x.withRerun(dev.opcheck4j.api.Rerun.CLI)).toList());
    return finish(report, outcome.inputErrors(), o.reportDir);
  }

  /** Versions, seed, tries, workers; the devices follow when the run knows them ({@link Console#runStarted}). */
  private void printHeader(RunRequest r) {
    Versions v = Versions.current();
    out.println("opcheck4j " + v.tool() + " · libtorch " + v.torch() + " (JavaCPP presets " + v.presets() + ")");
    out.println("seed " + r.seed() + ", " + r.tries() + " generated inputs per op and device, "
        + r.jobs() + (r.jobs() == 1 ? " worker" : " workers") + (r.shard().count() > 1 ? ", shard " + r.shard() : ""));
  }

  /** Ops the spec files name (after --op), for the progress line; 0 when a library is checked whole. */
  private static int plannedOps(Options o) {
    if (!o.libraries.isEmpty()) {
      return 0;
    }
    int n = 0;
    for (Path spec : o.specs) {
      try {
        n += SpecReader.read(spec).selectOps(o.ops).size();
      } catch (SpecException | RuntimeException e) {
        return 0; // the run itself reports the problem with its file and line
      }
    }
    return n;
  }

  private ExitCode finish(RunReport report, List<String> inputErrors, Path reportDir) throws IOException {
    writeReports(report, reportDir);
    printSummary(report);
    for (String e : inputErrors) {
      err.println("opcheck: " + e);
    }
    if (report.count(Outcome.ERRORED) > 0) {
      return ExitCode.HARNESS_ERROR;
    }
    if (!inputErrors.isEmpty()) {
      return ExitCode.INPUT_ERROR;
    }
    return report.count(Outcome.FAILED) > 0 ? ExitCode.CHECK_FAILED : ExitCode.OK;
  }

  private void writeReports(RunReport report, Path dir) throws IOException {
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

  private void printSummary(RunReport report) {
    java.util.Map<String, java.util.EnumMap<Outcome, Integer>> byOp = new java.util.LinkedHashMap<>();
    for (CheckResult r : report.results()) {
      String row = r.library() != null ? r.library() : r.op();
      byOp.computeIfAbsent(row, k -> new java.util.EnumMap<>(Outcome.class)).merge(r.outcome(), 1, Integer::sum);
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

  /** Parsed options of check/list/demo. */
  static final class Options {
    final List<Path> specs = new ArrayList<>();
    final List<Path> libraries = new ArrayList<>();
    final List<String> ops = new ArrayList<>();
    final List<String> checks = new ArrayList<>();
    final List<Device> devices = new ArrayList<>();
    final List<String> inputs = new ArrayList<>();
    Path baseline;
    long seed = RunRequest.DEFAULT_SEED;
    int tries = RunRequest.DEFAULT_TRIES;
    Path reportDir;
    Path out;
    boolean verbose;
    int jobs;
    java.time.Duration timeout = RunRequest.DEFAULT_TIMEOUT;
    RunRequest.Shard shard = RunRequest.Shard.ALL;
    Path junitXml;
    boolean warningsAsErrors;
    String commandLine;

    /** Options that take a value, for "unknown option" and "did you mean". */
    static final List<String> WITH_VALUE = List.of("--spec", "--library", "--op", "--check", "--device", "--seed",
        "--report-dir", "--jobs", "--timeout", "--shard", "--tries", "--out", "--junit-xml", "--input", "--baseline");
    static final List<String> FLAGS = List.of("--verbose", "--warnings-as-errors", "--help", "-h");

    final List<Path> mergeDirs = new ArrayList<>();

    /** {@code merge --report-dir OUT DIR...}. */
    static Options parseMerge(List<String> args) throws UsageException {
      Options o = new Options();
      for (int i = 0; i < args.size(); i++) {
        String a = args.get(i);
        if (a.equals("--report-dir") && i + 1 < args.size()) {
          o.reportDir = Path.of(args.get(++i));
        } else if (a.equals("--verbose")) {
          o.verbose = true;
        } else if (a.startsWith("--")) {
          throw new UsageException("unknown option '" + a + "' for merge"
              + Suggestions.didYouMean(a, List.of("--report-dir", "--verbose")) + " (see --help)");
        } else {
          o.mergeDirs.add(Path.of(a));
        }
      }
      return o;
    }

    static Options parse(List<String> args) throws UsageException {
      Options o = new Options();
      for (int i = 0; i < args.size(); i++) {
        String a = args.get(i);
        if (a.equals("--verbose")) {
          o.verbose = true;
          continue;
        }
        if (a.equals("--warnings-as-errors")) {
          o.warningsAsErrors = true;
          continue;
        }
        if (!WITH_VALUE.contains(a)) {
          List<String> known = new ArrayList<>(WITH_VALUE);
          known.addAll(FLAGS);
          throw new UsageException(a.startsWith("-")
              ? "unknown option '" + a + "'" + Suggestions.didYouMean(a, known) + " (see --help)"
              : "unexpected argument '" + a + "' (options start with --; see --help)");
        }
        if (i + 1 >= args.size()) {
          throw new UsageException(a + " needs a value");
        }
        String v = args.get(++i);
        switch (a) {
          case "--spec" -> o.specs.add(Path.of(v));
          case "--library" -> o.libraries.add(Path.of(v));
          case "--op" -> o.ops.add(v);
          case "--input" -> o.inputs.add(v);
          case "--baseline" -> o.baseline = Path.of(v);
          case "--check" -> o.checks.add(v);
          case "--device" -> o.devices.add(Device.parse(v)
              .orElseThrow(() -> new UsageException("unknown device '" + v + "'; expected cpu, meta or cuda")));
          case "--seed" -> {
            try {
              o.seed = Long.parseLong(v);
            } catch (NumberFormatException e) {
              throw new UsageException("--seed takes a whole number, got '" + v + "'");
            }
          }
          case "--report-dir" -> o.reportDir = Path.of(v);
          case "--jobs" -> o.jobs = positive("--jobs", v);
          case "--junit-xml" -> o.junitXml = Path.of(v);
          case "--timeout" -> o.timeout = java.time.Duration.ofSeconds(positive("--timeout", v));
          case "--shard" -> {
            try {
              o.shard = RunRequest.Shard.parse(v);
            } catch (IllegalArgumentException e) {
              throw new UsageException(e.getMessage());
            }
          }
          case "--out" -> o.out = Path.of(v);
          case "--tries" -> {
            try {
              o.tries = Integer.parseInt(v);
            } catch (NumberFormatException e) {
              o.tries = -1;
            }
            if (o.tries < 0) {
              throw new UsageException("--tries takes a whole number >= 0, got '" + v + "'");
            }
          }
          default -> throw new IllegalStateException("unhandled option " + a);
        }
      }
      return o;
    }

    private static int positive(String option, String v) throws UsageException {
      try {
        int n = Integer.parseInt(v);
        if (n > 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // falls through to the message below
      }
      throw new UsageException(option + " takes a whole number >= 1, got '" + v + "'");
    }

    Options withSpecs(List<Path> paths) {
      specs.clear();
      specs.addAll(paths);
      libraries.clear();
      return this;
    }
  }
}
