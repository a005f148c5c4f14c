package dev.opcheck4j.junit;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.Rerun;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.run.accept.AcceptMode;
import dev.opcheck4j.reporting.NoteCounts;
import dev.opcheck4j.reporting.ReportDirLock;
import dev.opcheck4j.reporting.ReportWriter;
import dev.opcheck4j.reporting.WorkflowAnnotations;
import dev.opcheck4j.run.plan.ExpectedFailures;
import dev.opcheck4j.run.plan.RunOptions;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.Device;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.platform.engine.EngineDiscoveryRequest;
import org.junit.platform.engine.EngineExecutionListener;
import org.junit.platform.engine.ExecutionRequest;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestEngine;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.discovery.UniqueIdSelector;
import org.junit.platform.engine.reporting.ReportEntry;

/**
 * The opcheck4j JUnit Platform engine: spec files on the test classpath (under {@code opcheck/}),
 * named by {@code opcheck4j.specs}, or anchored by {@link OpCheckSpec} become a test tree of
 * spec → op → "check on device" → examples, run through the harness: a test starts when its unit
 * starts and finishes at its result. Discovery reads specs only; libtorch is loaded when the tests run.
 */
public final class OpCheckEngine implements TestEngine {
  public static final String ID = "opcheck4j";

  private final UnaryOperator<String> env;
  private final Supplier<PrintStream> out;
  private final Consumer<List<SpecReader.Parsed>> discovered;

  public OpCheckEngine() {
    this(System::getenv, () -> System.out);
  }

  /**
   * An engine that hands the specs it reads at discovery to {@code discovered} (the command line's
   * {@code check --junit-xml} annotates with them, so that it reads each spec once).
   */
  public OpCheckEngine(Consumer<List<SpecReader.Parsed>> discovered) {
    this(System::getenv, () -> System.out, discovered);
  }

  /** An engine that reads {@code env} ({@code GITHUB_ACTIONS}, {@code GITHUB_WORKSPACE}) and prints its annotations to {@code out}. */
  OpCheckEngine(UnaryOperator<String> env, Supplier<PrintStream> out) {
    this(env, out, read -> {});
  }

  private OpCheckEngine(UnaryOperator<String> env, Supplier<PrintStream> out, Consumer<List<SpecReader.Parsed>> discovered) {
    this.env = env;
    this.out = out;
    this.discovered = discovered;
  }

  @Override
  public String getId() {
    return ID;
  }

  @Override
  public Optional<String> getGroupId() {
    return Optional.of("dev.opcheck4j");
  }

  @Override
  public Optional<String> getArtifactId() {
    return Optional.of("opcheck4j-harness");
  }

  @Override
  public TestDescriptor discover(EngineDiscoveryRequest request, UniqueId uniqueId) {
    EngineSettings settings = EngineSettings.from(request.getConfigurationParameters(), env);
    ClassLoader loader = Optional.ofNullable(Thread.currentThread().getContextClassLoader())
        .orElse(OpCheckEngine.class.getClassLoader());
    SpecDiscovery discovery = new SpecDiscovery(loader);
    List<SpecDiscovery.Location> found = discovery.discover(request, settings);
    List<SpecReader.Parsed> read = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    for (SpecDiscovery.Location loc : found) {
      try {
        // any well-formed check name in "skip": its run checks them against its checks (Launcher.read)
        read.add(SpecReader.parse(loc.path(), Set.of()));
        errors.add(null);
      } catch (SpecException e) {
        read.add(null);
        errors.add(SpecDiscovery.atSource(e.getMessage(), loc.path()));
      }
    }
    discovered.accept(read.stream().filter(Objects::nonNull).toList());
    List<SpecFile> files = read.stream().map(p -> p == null ? null : p.file()).toList();
    List<String> unknown = settings.run().ops().stream()
        .filter(op -> files.stream().noneMatch(f -> f != null && f.ops().stream().anyMatch(o -> SpecFile.names(op, o.op()))))
        .toList();
    if (!unknown.isEmpty() && files.stream().allMatch(java.util.Objects::nonNull)) {
      throw new IllegalArgumentException(EngineSettings.PREFIX + "ops names " + String.join(", ", unknown)
          + ", which no spec has; specs found: " + String.join(", ", found.stream().map(SpecDiscovery.Location::key).toList()));
    }
    settings = settings.judgedBy(expectedFailures(settings, found, files)).sharded(files);
    RunDescriptor root = new RunDescriptor(uniqueId, settings, read, errors);
    for (int i = 0; i < found.size(); i++) {
      EngineNode spec = EngineTree.spec(uniqueId, i, found.get(i), discovery.viaClasses());
      root.addChild(spec);
      spec.addChild(EngineTree.input(spec));
      if (files.get(i) != null) {
        EngineTree.build(spec, files.get(i), settings);
      }
    }
    remember(root, root);
    List<UniqueId> selected = request.getSelectorsByType(UniqueIdSelector.class).stream()
        .map(UniqueIdSelector::getUniqueId).filter(id -> id.hasPrefix(uniqueId)).toList();
    if (!selected.isEmpty()) {
      prune(root, selected);
    }
    return root;
  }

  /**
   * The expected-failures file, read once (none while accept mode has not written it yet), its entries
   * that hold in this suite checked to be about the namespaces of its specs: each spec's run then
   * checks its own ops.
   *
   * @throws IllegalArgumentException naming the parameter and the located problem
   */
  private static ExpectedFailures expectedFailures(EngineSettings settings, List<SpecDiscovery.Location> found,
      List<SpecFile> files) {
    Optional<Path> file = settings.expectedFailures();
    if (file.isEmpty() || settings.accept() && !java.nio.file.Files.exists(file.get())) {
      return ExpectedFailures.NONE;
    }
    try {
      ExpectedFailures all = ExpectedFailures.read(file.get());
      Set<String> namespaces = new java.util.TreeSet<>();
      files.stream().filter(Objects::nonNull).flatMap(f -> f.ops().stream())
          .forEach(o -> namespaces.add(ExpectedFailures.namespace(o.op())));
      all.activeIn(found.stream().map(SpecDiscovery.Location::path).toList(), settings.run().tags())
          .requireNamespaces(namespaces);
      return all;
    } catch (SpecException e) {
      throw new IllegalArgumentException(EngineSettings.PREFIX + "expectedFailures: " + e.getMessage(), e);
    }
  }

  private static void remember(RunDescriptor root, TestDescriptor d) {
    if (d instanceof EngineNode n && n.kind == EngineNode.Kind.CHECK) {
      root.discovered.add(NodeKey.of(n));
    }
    d.getChildren().forEach(c -> remember(root, c));
  }

  /** Keeps the nodes on the way to, or under, a selected unique id (an IDE rerunning one test). */
  private static void prune(TestDescriptor d, List<UniqueId> selected) {
    for (TestDescriptor c : List.copyOf(d.getChildren())) {
      UniqueId id = c.getUniqueId();
      boolean under = selected.stream().anyMatch(id::hasPrefix);
      boolean above = selected.stream().anyMatch(s -> s.hasPrefix(id));
      if (!under && !above) {
        c.removeFromHierarchy();
      } else if (!under) {
        prune(c, selected);
      }
    }
  }

  @Override
  public void execute(ExecutionRequest request) {
    RunDescriptor root = (RunDescriptor) request.getRootTestDescriptor();
    EngineExecutionListener listener = request.getEngineExecutionListener();
    listener.executionStarted(root);
    if (root.getChildren().isEmpty()) {
      listener.executionFinished(root, TestExecutionResult.successful());
      return;
    }
    EngineSettings settings = root.settings;
    ReportDirLock lock;
    try {
      lock = ReportDirLock.acquire(settings.run().reportDir(),
          "the JUnit engine " + ID + " in pid " + ProcessHandle.current().pid());
    } catch (ReportDirLock.Refused e) {
      listener.executionFinished(root, TestExecutionResult.failed(new IllegalStateException(e.getMessage())));
      return;
    }
    try (lock) {
      if (lock.note() != null) {
        System.out.println("opcheck4j: note: " + lock.note());
      }
      execute(root, settings, listener);
    }
  }

  private void execute(RunDescriptor root, EngineSettings settings, EngineExecutionListener listener) {
    System.out.println("opcheck4j: " + String.join(", ", settings.describe().entrySet().stream()
        .map(e -> e.getKey().substring(EngineSettings.PREFIX.length()) + "=" + e.getValue()).toList()));
    listener.reportingEntryPublished(root, ReportEntry.from(settings.describe()));
    ResultStream stream = new ResultStream(listener, root, rerunStyle(), out.get());
    List<EngineRun.Job> jobs = new ArrayList<>();
    for (TestDescriptor c : root.getChildren()) {
      EngineNode spec = (EngineNode) c;
      SpecReader.Parsed file = root.read.get(spec.spec);
      if (file == null) {
        stream.onInputError(spec.spec, root.specErrors.get(spec.spec));
        stream.onSpecDone(spec.spec);
      } else {
        narrowed(spec, settings).ifPresentOrElse(s -> jobs.add(new EngineRun.Job(spec.spec, file, s)),
            () -> stream.onSpecDone(spec.spec));
      }
    }
    RunReport report = run(jobs, settings.describe(), stream);
    if (report != null) {
      writeReports(new RunReport(report.run(), report.checks(), stream.results()), settings.run().reportDir(),
          settings.allure());
      if (settings.accept() && settings.expectedFailures().isPresent()) {
        accept(settings.expectedFailures().get(), stream.results());
      }
    }
    annotate(root, stream.results());
    System.out.println("opcheck4j summary: " + String.join(", ", stream.outcomes().entrySet().stream()
        .map(e -> e.getKey() + " " + e.getValue()).toList()));
    // the notes in one line, as the command line prints them: one by one they are in the reports
    NoteCounts.of(stream.results()).line(RunOptions.STRICT.engineKey() + "=true",
            (report != null ? "the reports in " + settings.run().reportDir() : "the test reports") + " list them")
        .ifPresent(line -> System.out.println("opcheck4j " + line));
    listener.executionFinished(root, TestExecutionResult.successful());
  }

  /**
   * Under GitHub Actions, the failed tests as annotations at their spec lines, as {@code check} prints
   * them ({@link WorkflowAnnotations}); an expected failure is a passed test and gets none.
   */
  private void annotate(RunDescriptor root, List<CheckResult> results) {
    if (!WorkflowAnnotations.wanted(env)) {
      return;
    }
    String ws = env.apply("GITHUB_WORKSPACE");
    Path workspace = Path.of(ws != null && !ws.isBlank() ? ws : System.getProperty("user.dir")).toAbsolutePath().normalize();
    List<SpecReader.Parsed> specs = root.read.stream().filter(Objects::nonNull).toList();
    // an expected failure passes, and gets no annotation (lines() takes what fails the run)
    WorkflowAnnotations.of(specs, read -> repositoryFile(read, workspace)).lines(results).forEach(out.get()::println);
  }

  /**
   * Accept mode ({@code opcheck4j.accept}): rewrites the expected-failures file so that this run would
   * pass, and prints its diff; the tests were judged by the file as it was.
   */
  private void accept(Path file, List<CheckResult> results) {
    try {
      AcceptMode accepted = AcceptMode.of(file, results);
      accepted.write();
      accepted.diff().forEach(out.get()::println);
      accepted.unlisted().forEach(u -> out.get().println("opcheck4j: accept: " + u));
      out.get().println("opcheck4j " + accepted.summary());
    } catch (SpecException | java.io.IOException e) {
      out.get().println("opcheck4j: accept: " + file + " not written: " + e.getMessage());
    }
  }

  /**
   * The spec as the repository holds it, relative to {@code workspace} where it is inside: Maven runs
   * the copy under {@code target/test-classes/} of {@code src/test/resources/}, which is the file a
   * pull request shows.
   */
  static Path repositoryFile(Path read, Path workspace) {
    Path file = SpecDiscovery.source(read);
    return file.startsWith(workspace) ? workspace.relativize(file) : file;
  }

  /**
   * The rerun line that works where the tests run: Maven's Surefire, else the command line. Gradle gets
   * the command line's too: no Gradle build was ever run here (no distribution is reachable from these
   * machines), so how it forwards {@code -D} to a test JVM is unverified, and a line that may not
   * reproduce is worse than none.
   */
  private static Rerun rerunStyle() {
    if (System.getProperty("surefire.real.class.path") != null || System.getProperty("surefire.test.class.path") != null) {
      return Rerun.MAVEN;
    }
    return Rerun.CLI;
  }

  /**
   * The run's settings narrowed to the ops, checks and devices the (filtered) tree still has, and in a run on
   * several runtimes to the runtimes whose containers still have tests (an IDE rerunning one runtime's node).
   */
  private static Optional<EngineSettings> narrowed(EngineNode spec, EngineSettings s) {
    Set<String> ops = new LinkedHashSet<>();
    Set<String> checks = new LinkedHashSet<>();
    Set<Device> devices = new LinkedHashSet<>();
    collect(spec, ops, checks, devices);
    List<String> runtimes = spec.getChildren().stream().map(EngineNode.class::cast)
        .filter(n -> n.kind == EngineNode.Kind.RUNTIME).map(EngineNode::runtime).toList();
    if (!runtimes.isEmpty()) {
      s = s.onRuntimes(runtimes);
    }
    if (checks.isEmpty()) {
      return Optional.empty();
    }
    if (ops.isEmpty() && s.run().shard().count() > 1) {
      // none of the spec's ops is in this shard (no ops would mean all of them to the run): its
      // library-wide checks run in the shards that have its ops
      return Optional.empty();
    }
    // crash and timeout results, and the verdicts of the checks of an op's finished results (a tag not
    // earned, a required family that never ran), have no node until they happen: keep them whenever anything runs
    s.selectedChecks().stream().filter(c -> c.scope() == CheckInfo.Scope.SUPERVISOR || c.scope() == CheckInfo.Scope.RESULTS)
        .forEach(c -> checks.add(c.id()));
    // and so do the checks of what a tag promises on an op the library registers the tag for: discovery reads
    // the spec's declared tags alone, the registered ones are known once a worker loads the library
    s.selectedChecks().stream().filter(c -> !c.appliesTo(dev.opcheck4j.checks.OpTags.NONE)).forEach(c -> checks.add(c.id()));
    List<Device> devs = devices.isEmpty() ? s.selectedDevices() : s.selectedDevices().stream().filter(devices::contains).toList();
    return Optional.of(s.narrowed(List.copyOf(ops), List.copyOf(checks), devs));
  }

  private static void collect(TestDescriptor d, Set<String> ops, Set<String> checks, Set<Device> devices) {
    if (d instanceof EngineNode n && n.kind == EngineNode.Kind.DEVICE && n.isTest()) {
      // an op's one cuda test (no GPU possible here): the run still says what it did not check there
      Device.parse(n.device).ifPresent(devices::add);
    }
    if (d instanceof EngineNode n && n.kind == EngineNode.Kind.CHECK) {
      if (!n.op.equals(CheckResult.NONE)) {
        ops.add(n.op);
      }
      checks.add(n.check);
      Device.parse(n.device).ifPresent(devices::add);
    }
    d.getChildren().forEach(c -> collect(c, ops, checks, devices));
  }

  private sealed interface Event permits UnitStarted, Result, InputError, Refused, SpecDone, End {}

  private record UnitStarted(int spec, RunListener.UnitEvent unit) implements Event {}

  private record Result(int spec, CheckResult result) implements Event {}

  private record InputError(int spec, String message) implements Event {}

  private record Refused(int spec, String runtime, String reason) implements Event {}

  private record SpecDone(int spec) implements Event {}

  private record End(RunReport report, Throwable failure) implements Event {}

  /** Runs in the background and reports on this thread, where the platform's listeners expect it. */
  private static RunReport run(List<EngineRun.Job> jobs, Map<String, String> configuration, ResultStream stream) {
    if (jobs.isEmpty()) {
      return null;
    }
    BlockingQueue<Event> queue = new LinkedBlockingQueue<>();
    Thread worker = new Thread(() -> {
      try {
        RunReport report = EngineRun.run(jobs, configuration, new EngineRun.Sink() {
          @Override
          public RunListener listener(int spec) {
            return new RunListener() {
              @Override
              public void unitStarted(UnitEvent unit) {
                queue.add(new UnitStarted(spec, unit));
              }

              @Override
              public void result(CheckResult result) {
                queue.add(new Result(spec, result));
              }
            };
          }

          @Override
          public void inputError(int spec, String message) {
            queue.add(new InputError(spec, message));
          }

          @Override
          public void refused(int spec, String runtime, String reason) {
            queue.add(new Refused(spec, runtime, reason));
          }

          @Override
          public void specDone(int spec) {
            queue.add(new SpecDone(spec));
          }
        });
        queue.add(new End(report, null));
      } catch (Throwable t) {
        queue.add(new End(null, t));
      }
    }, "opcheck4j-run");
    worker.setDaemon(true);
    worker.start();
    while (true) {
      Event e;
      try {
        e = queue.take();
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        stream.onRunFailure(ex);
        return null;
      }
      if (e instanceof UnitStarted u) {
        stream.onUnitStarted(u.spec(), u.unit());
      } else if (e instanceof Result r) {
        stream.onResult(r.spec(), r.result());
      } else if (e instanceof InputError i) {
        stream.onInputError(i.spec(), i.message());
      } else if (e instanceof Refused f) {
        stream.onRefused(f.spec(), f.runtime(), f.reason());
      } else if (e instanceof SpecDone d) {
        stream.onSpecDone(d.spec());
      } else if (e instanceof End end) {
        if (end.failure() != null) {
          stream.onRunFailure(end.failure());
        }
        return end.report();
      }
    }
  }

  private void writeReports(RunReport report, Path dir, boolean allure) {
    List<ReportFormat> formats = new ArrayList<>();
    ServiceLoader.load(ReportFormat.class, OpCheckEngine.class.getClassLoader()).forEach(formats::add);
    for (ReportFormat f : List.copyOf(formats)) {
      if (!f.byDefault() && !allure) {
        formats.remove(f);
        try {
          f.discard(dir.toAbsolutePath()); // an earlier run's, which this one would otherwise seem to have written
        } catch (IOException e) {
          out.get().println("opcheck4j: " + f.name() + " of an earlier run not deleted: " + e);
        }
      }
    }
    if (formats.isEmpty()) {
      out.get().println("opcheck4j: no report format on the test classpath; add dev.opcheck4j:opcheck4j-reports for "
          + dir.resolve("opcheck-report.json"));
      return;
    }
    writeReports(report, dir, formats);
  }

  /** Writes {@code formats} through {@link ReportWriter}, one line each; a failed format fails no test. */
  void writeReports(RunReport report, Path dir, List<ReportFormat> formats) {
    try {
      for (ReportWriter.Written w : ReportWriter.write(report, dir.toAbsolutePath(), formats)) {
        out.get().println("opcheck4j: " + w.line());
      }
    } catch (IOException e) {
      out.get().println("opcheck4j: no report written: " + dir.toAbsolutePath() + ": " + e);
    }
  }
}
