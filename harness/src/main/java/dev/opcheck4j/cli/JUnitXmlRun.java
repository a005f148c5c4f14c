package dev.opcheck4j.cli;

import dev.opcheck4j.api.ReportReader;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.junit.CheckFailedError;
import dev.opcheck4j.junit.ClasspathSpecTests;
import dev.opcheck4j.junit.OpCheckEngine;
import dev.opcheck4j.run.plan.RunOption;
import dev.opcheck4j.run.plan.RunOptions;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.plan.RunTarget;
import dev.opcheck4j.spec.SpecReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;

/**
 * {@code check --junit-xml DIR}: the specs run as the opcheck4j engine's tests on the JUnit
 * Platform, and the platform's own legacy XML listener writes {@code DIR/TEST-opcheck4j.xml}, the
 * format Jenkins, GitLab and GitHub test reporters read. Exit codes are those of {@code check}.
 */
final class JUnitXmlRun {
  private static final Pattern SUITE = Pattern.compile(
      "<testsuite [^>]*tests=\"(\\d+)\" skipped=\"(\\d+)\" failures=\"(\\d+)\" errors=\"(\\d+)\"");
  private final Session session;
  private final PrintStream out;
  private final PrintStream err;

  JUnitXmlRun(Session session) {
    this.session = session;
    this.out = session.out();
    this.err = session.err();
  }

  ExitCode run(Arguments args) throws UsageException, IOException {
    List<Path> specs = args.all(RunOptions.SPECS);
    Path xmlDir = args.get(RunOptions.JUNIT_XML);
    if (!args.all(RunOptions.LIBRARIES).isEmpty() || specs.isEmpty()) {
      throw new UsageException("--junit-xml checks spec files: give --spec FILE (not --library)");
    }
    if (args.get(RunOptions.SHARD).count() > 1) {
      throw new UsageException("--junit-xml and --shard cannot be combined; merge the shards' reports instead");
    }
    if (args.has(RunOptions.ACCEPT)) {
      // the engine's accept mode judges the tests by the file as it was; check's exits 0 only on no change
      throw new UsageException("--junit-xml and --accept cannot be combined; accept first, then write the XML with"
          + " --expected-failures");
    }
    try {
      BuiltinChecks.select(args.all(RunOptions.CHECKS));
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    for (Path spec : specs) {
      if (!Files.isRegularFile(spec)) {
        throw new UsageException(spec + ": spec file not found");
      }
    }
    Files.createDirectories(xmlDir);
    Path reportDir = args.has(RunOptions.REPORT_DIR) ? args.get(RunOptions.REPORT_DIR) : xmlDir;
    List<DiscoverySelector> selectors = new ArrayList<>();
    specs.forEach(s -> selectors.add(DiscoverySelectors.selectFile(s.toAbsolutePath().toFile())));
    // The class Surefire selects: the engine then names each op as a class and each test as its
    // method, so this XML has classname = op exactly as Surefire's has (no other class is selected)
    selectors.add(DiscoverySelectors.selectClass(ClasspathSpecTests.class));
    LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request()
        .selectors(selectors)
        .filters(EngineFilter.includeEngines(OpCheckEngine.ID))
        // the command line says what runs: no junit-platform.properties or -D of a classpath it shares
        .enableImplicitConfigurationParameters(false)
        .configurationParameter(RunOptions.REPORT_DIR.engineKey(), RunOptions.REPORT_DIR.show(reportDir));
    // every option the engine has too goes to it by its key; the spec files are the selectors
    for (RunOption<?> option : CheckCommand.OPTIONS) {
      if (option.key() != null && option != RunOptions.SPECS && option != RunOptions.REPORT_DIR && args.has(option)) {
        request.configurationParameter(option.engineKey(),
            option.show(option.repeatable() ? args.all(option) : args.get(option)));
      }
    }
    LauncherDiscoveryRequest discovery = request.build();
    // the specs as the engine read them at discovery, for the annotations: each is read once
    List<SpecReader.Parsed> read = new ArrayList<>();
    Launcher launcher = LauncherFactory.create(LauncherConfig.builder()
        .enableTestEngineAutoRegistration(false)
        .enableTestExecutionListenerAutoRegistration(false)
        .addTestEngines(new OpCheckEngine(read::addAll))
        .build());
    Outcomes outcomes = new Outcomes(args.get(RunOptions.VERBOSE));
    PrintWriter xmlLog = new PrintWriter(err, true);
    launcher.execute(discovery, new LegacyXmlReportGeneratingListener(xmlDir, xmlLog), outcomes);
    Path xml = xmlDir.resolve("TEST-" + OpCheckEngine.ID + ".xml");
    RunReport report = report(reportDir.resolve("opcheck-report.json"));
    if (report != null) {
      RunSummary.printSummary(report, out, null); // the engine printed the notes' line
    }
    out.println("junit xml: " + xml);
    if (report != null) {
      out.println(testsLine(Files.readString(xml), report, specs.size()));
      List<RunTarget> targets = new ArrayList<>();
      for (Path spec : specs) {
        read.stream().filter(p -> p.file().file().equals(spec.toAbsolutePath().normalize())).findFirst()
            .ifPresent(p -> targets.add(new RunTarget(spec, null, p)));
      }
      CheckCommand.annotate(report, targets, session);
    }
    for (String e : outcomes.inputErrors) {
      err.println("opcheck: " + e);
    }
    if (outcomes.harnessErrors > 0) {
      return ExitCode.HARNESS_ERROR;
    }
    if (!outcomes.inputErrors.isEmpty()) {
      return ExitCode.INPUT_ERROR;
    }
    return outcomes.failures > 0 ? ExitCode.CHECK_FAILED : ExitCode.OK;
  }

  /** The engine's report of the run, or null when it wrote none (no spec could run). */
  private static RunReport report(Path json) throws IOException {
    if (!Files.isRegularFile(json)) {
      return null;
    }
    ReportReader reader = ServiceLoader.load(ReportReader.class).findFirst()
        .orElseThrow(() -> new IllegalStateException("no report reader on the classpath (opcheck4j-reports missing)"));
    try {
      return reader.read(json);
    } catch (ReportReader.UnsupportedReportException e) {
      throw new IllegalStateException(json + ": " + e.getMessage(), e);
    }
  }

  /**
   * How the XML's tests relate to the results above (docs/report.md, "Results and tests"): each result
   * is one test, and the tests that are no result are one per spec (its input) and the checks that
   * never ran on a node (a device that does not run), skipped.
   */
  static String testsLine(String xml, RunReport report, int specs) {
    Matcher m = SUITE.matcher(xml);
    if (!m.find()) {
      return "junit xml: no <testsuite> element";
    }
    int tests = Integer.parseInt(m.group(1));
    int results = report.results().size();
    // on a machine that cannot have CUDA an op's cuda results are one test, "checks on cuda"
    int cudaTests = (int) Pattern.compile("<testcase name=\"checks on cuda\"").matcher(xml).results().count();
    int cudaResults = cudaTests == 0 ? 0 : (int) report.results().stream().filter(r -> "cuda".equals(r.device())).count();
    int none = tests - (results - cudaResults + cudaTests) - specs;
    return "junit xml: " + tests + " tests (" + m.group(3) + " failures, " + m.group(4) + " errors, " + m.group(2)
        + " skipped) = " + results + " results + " + specs + (specs == 1 ? " spec input test" : " spec input tests")
        + " + " + none + " skipped tests of checks that never ran there"
        + (cudaTests == 0 ? "" : ", with " + cudaResults + " results on cuda as " + cudaTests
            + " tests \"checks on cuda\" (one per op; no CUDA device here)");
  }

  /** Counts what the tests said, and prints each failure as the check rendered it. */
  private final class Outcomes implements TestExecutionListener {
    private final boolean verbose;
    int failures;
    int harnessErrors;
    final List<String> inputErrors = new ArrayList<>();

    Outcomes(boolean verbose) {
      this.verbose = verbose;
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
      if (result.getStatus() != TestExecutionResult.Status.FAILED) {
        if (verbose && test.isTest()) {
          out.println("PASSED " + HumanText.name(test.getDisplayName()));
        }
        return;
      }
      Throwable t = result.getThrowable().orElse(null);
      String message = t == null ? test.getDisplayName() : t.getMessage();
      if (test.getUniqueIdObject().getLastSegment().getType().equals("input")) {
        inputErrors.addAll(List.of(message.split("\n")));
      } else if (t instanceof CheckFailedError) {
        failures++;
        out.println(HumanText.fact(message, true));
      } else {
        harnessErrors++;
        out.println(HumanText.fact(message, true));
      }
    }
  }
}
