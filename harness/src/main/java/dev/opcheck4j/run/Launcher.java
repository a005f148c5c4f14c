package dev.opcheck4j.run;

import dev.opcheck4j.run.session.SupervisorChecks;
import dev.opcheck4j.run.link.FoundExample;
import dev.opcheck4j.run.plan.Interruption;
import dev.opcheck4j.run.plan.RunBlock;
import dev.opcheck4j.run.supervisor.WorkerPool;
import dev.opcheck4j.run.supervisor.WorkerSlot;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.builtin.CheckCatalog;
import dev.opcheck4j.run.plan.ExpectedFailures;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.plan.RunTarget;
import dev.opcheck4j.run.shard.ShardPacking;
import dev.opcheck4j.run.shard.ShardTimes;
import dev.opcheck4j.run.plan.Runtimes;
import dev.opcheck4j.run.link.ModelInfo;
import dev.opcheck4j.run.link.WorkerInfo;
import dev.opcheck4j.run.supervisor.WorkerProcess;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.LibraryLoadException;
import dev.opcheck4j.torch.SchemaBaseline;
import dev.opcheck4j.torch.ValueBaseline;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The one entry point of a run, used by the command line, the JUnit API and the JUnit Platform
 * engine: {@code Launcher.execute(request, listener)} checks what the request names and returns the
 * report, telling {@code listener} what happens as it happens (the run, each op, each unit and its
 * result, in the plan's order whatever the number of workers).
 *
 * <p>This process plans, generates, shrinks and reports, and loads no native code: every unit that
 * touches libtorch runs in one of {@code jobs} worker JVMs, which take ops from one queue. A worker
 * that dies is replaced and the run goes on. Results are also appended to
 * {@code DIR/opcheck-results.jsonl} as they arrive.
 *
 * <p>{@link RunSetup} resolves the request, {@link WorkerPool} keeps the workers, {@link JobScheduler}
 * runs the plan's jobs on them, and {@link OneWorkerCommands} does the commands other than {@code check}.
 */
public final class Launcher {
  private Launcher() {}

  /**
   * Runs {@code request}.
   *
   * @throws LibraryLoadException when a library cannot be loaded, or crashes while loading (one line naming it)
   * @throws SpecException when a spec file is invalid
   * @throws IllegalArgumentException naming an unknown check or family
   */
  public static RunOutcome execute(RunRequest request, RunListener listener)
      throws LibraryLoadException, SpecException {
    return execute(request, listener, new Interruption());
  }

  /**
   * Runs {@code request} until {@code stop} is requested: then no unit and no worker starts, the
   * workers are killed, and the outcome holds the results gathered so far, its run block marked
   * interrupted (the results file gets no end line).
   *
   * @throws LibraryLoadException when a library cannot be loaded, or crashes while loading (one line naming it)
   * @throws SpecException when a spec file is invalid
   * @throws IllegalArgumentException naming an unknown check or family
   * @throws ResultsFile.NoSpace when the report dir's disk is full
   */
  public static RunOutcome execute(RunRequest request, RunListener listener, Interruption stop)
      throws LibraryLoadException, SpecException {
    request = read(request);
    if (!Runtimes.isDefault(request.runtimes())) {
      return RuntimeRuns.execute(request, listener, stop);
    }
    return executeOne(request, listener, stop);
  }

  /**
   * {@code request} with each of its spec files read, so that nothing after reads one again: the
   * runtimes of a run on several, the comparison of their outputs, the annotations of a front end. A spec
   * its entry point read already ({@link RunTarget#read}: the JUnit engine's discovery, with any
   * well-formed check name) is not read again; its {@code "skip"} names are checked against the checks.
   *
   * @throws SpecException when a spec file is invalid (the first one, in the request's order)
   */
  public static RunRequest read(RunRequest request) throws SpecException {
    List<RunTarget> targets = new java.util.ArrayList<>();
    java.util.Set<String> checks = Preflight.checkNames();
    for (RunTarget t : request.targets()) {
      if (t.spec() == null) {
        targets.add(t);
      } else if (t.read() == null) {
        targets.add(new RunTarget(t.spec(), t.library(), SpecReader.parse(t.spec(), checks)));
      } else {
        SpecReader.requireCheckNames(t.read(), checks);
        targets.add(t);
      }
    }
    return request.toBuilder().targets(targets).build();
  }

  /** {@link #execute} on the one runtime {@code request} names (none: this JVM's). */
  static RunOutcome executeOne(RunRequest request, RunListener listener, Interruption stop)
      throws LibraryLoadException, SpecException {
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    RunSetup setup = RunSetup.of(request);
    if (request.runtimes().isEmpty() && !setup.specRuntimes().isEmpty()) {
      List<String> claimed = RuntimeRuns.claimed(setup.specRuntimes(), setup.specs());
      if (!Runtimes.isDefault(claimed)) {
        return RuntimeRuns.execute(request.toBuilder().runtimes(claimed).build(), listener, stop);
      }
    }
    RunDirectory dir = RunDirectory.of(request.reportDir());
    // every worker of the process, including one still loading its libraries
    stop.whenRequested(WorkerProcess::terminateAll);
    WorkerPool pool = new WorkerPool(request, dir.path(), setup.init(), stop, SupervisorChecks.BUILTIN);
    boolean ran = false;
    try {
      RunSetup.Started start;
      try {
        start = setup.start(pool);
      } catch (Interruption.Stopped s) {
        RunInfo run = setup.runBlock(List.of(), started, (System.nanoTime() - t0) / 1_000_000)
            .withCompletion(RunInfo.Completion.interruptedBy(stop.signal()));
        return new RunOutcome(new RunReport(run, CheckCatalog.builtin(), List.of()), List.of(), List.of(), List.of());
      }
      List<RunPlan.Target> targets = setup.targets(start.info());
      ExpectedFailures expected = expectations(request, setup.specs(), targets);
      RunSetup.Refused refused = setup.refused(targets, pool.first());
      ran = true;
      List<Device> devices = request.devices().isEmpty() ? start.info().devicesUnderTest() : request.devices();
      RunPlan plan = new RunPlan(targets, devices, setup.checks(), request.seed(), request.tries(),
          request.severity(), request.timeout(), setup.baseline(), request.require(), request.repro());
      return run(setup, plan, start, refused, pool, dir.path(), listener, expected, stop, started, t0);
    } catch (LibraryLoadException e) {
      throw dir.keeping(e);
    } finally {
      pool.close();
      dir.close(ran, pool.numbered());
    }
  }

  /**
   * Runs {@code plan}'s jobs on {@code pool}, the results appended to the results file in {@code dir}
   * as they arrive, and returns the outcome; null when a job thread failed (its failure is thrown).
   */
  private static RunOutcome run(RunSetup setup, RunPlan plan, RunSetup.Started start, RunSetup.Refused refused,
      WorkerPool pool, Path dir, RunListener listener, ExpectedFailures expected, Interruption stop, Instant started,
      long t0) {
    RunRequest request = setup.request();
    WorkerInfo info = start.info();
    RunInfo run = setup.runBlock(RunBlock.devices(request.devices(), info.cudaAvailable()), started, 0);
    listener.runStarted(run);
    ShardPacking packing = JobScheduler.packing(plan, request.shard());
    List<JobScheduler.Job> all = JobScheduler.jobs(plan, packing, refused.entries());
    Expectations judge = new Expectations(expected, all.stream().filter(j -> j.op() != null).map(j -> j.op().op())
        .collect(java.util.stream.Collectors.toSet()), listener);
    listener = judge;
    listener.planned((int) all.stream().filter(j -> j.op() != null).count());
    Runner runner = new Runner(plan, info.cudaAvailable());
    JobScheduler scheduler = new JobScheduler(runner, all, setup.specs(), stop, start.cache());
    List<Check> checks = setup.checks();
    try (ResultsFile file = ResultsFile.create(dir, info.torchVersion(), info.presetsVersion(), started,
        checks.stream().map(Check::id).toList(), all.stream().map(JobScheduler.Job::name).toList(), plan.tries())) {
      OrderedRelease ordered = new OrderedRelease(all.stream().map(JobScheduler.Job::position).toList(), listener);
      List<WorkerSlot> slots = pool.fit(all.size());
      boolean completed = false;
      RunOutcome outcome = null;
      try {
        scheduler.run(slots, ordered, file);
        completed = !stop.requested();
        if (!completed) {
          ordered.releaseAll();
        }
      } finally {
        List<String> inputErrors = Stream.concat(refused.errors().stream(), runner.inputErrors().stream())
            .sorted().toList();
        RunInfo finished = setup.runBlock(run.devices(), started, (System.nanoTime() - t0) / 1_000_000)
            .withCached(scheduler.cachedInPlanOrder());
        if (stop.requested()) {
          finished = finished.withCompletion(RunInfo.Completion.interruptedBy(stop.signal()));
        }
        RunListener.RunEnd end = new RunListener.RunEnd(completed, inputErrors);
        file.runFinished(finished, end);
        listener.runFinished(finished, end);
        if (completed || stop.requested()) {
          List<String> ops = all.stream().filter(j -> j.op() != null).map(j -> j.op().op()).toList();
          List<CheckResult> results = judge.results();
          // a shard says what it was predicted to take and what it took, for merge to set side by side
          ShardTimes times = request.shard().count() == 1 ? null
              : ShardTimes.of(packing, results, finished.durationMs());
          if (times != null) {
            times.write(dir);
          }
          outcome = new RunOutcome(new RunReport(finished, CheckCatalog.builtin(), results)
              .withKernelLines(runner.kernelLines()), inputErrors,
              ops, info.libraries(), times);
        }
      }
      return outcome;
    }
  }

  /**
   * The entries of the request's expected-failures file that hold in this run (its spec files, its
   * tags), each checked to name an op the run knows before anything runs.
   *
   * @throws SpecException with one located line per entry naming an op the run does not know
   */
  private static ExpectedFailures expectations(RunRequest request, List<Path> specs, List<RunPlan.Target> targets)
      throws SpecException {
    ExpectedFailures active = request.expectedFailures().activeIn(specs.stream().filter(java.util.Objects::nonNull)
        .toList(), request.tags());
    java.util.Set<String> known = new java.util.HashSet<>();
    for (RunPlan.Target t : targets) {
      known.addAll(t.library().opNames());
      known.addAll(t.library().dangling());
      t.ops().forEach(o -> known.add(o.op()));
    }
    active.requireKnownOps(known);
    return active;
  }

  /**
   * What a library registers, as a worker sees it (for {@code ./opcheck list}).
   *
   * @throws LibraryLoadException when it cannot be loaded, or crashes while loading
   */
  public static LibraryInfo describe(Path library) throws LibraryLoadException, SpecException {
    return OneWorkerCommands.describe(library);
  }

  /**
   * A library and, per op in its order, an example synthesized from the op's schema that the cpu
   * kernel accepts (or why none was found).
   */
  public record Synthesized(LibraryInfo library, List<FoundExample> found) {}

  /**
   * Searches, in a worker, an example for every op of {@code library} (for {@code ./opcheck init}).
   *
   * @throws LibraryLoadException when it cannot be loaded, or crashes while loading
   */
  public static Synthesized synthesize(Path library, long seed) throws LibraryLoadException, SpecException {
    return OneWorkerCommands.synthesize(library, seed);
  }

  /**
   * The schema baseline of {@code library} as a worker sees it: per op its schema, the dispatch keys
   * with kernels and its tags (for {@code ./opcheck baseline}).
   *
   * @throws LibraryLoadException when it cannot be loaded, or crashes while loading
   */
  public static SchemaBaseline baseline(Path library) throws LibraryLoadException, SpecException {
    return OneWorkerCommands.baseline(library);
  }

  /**
   * A baseline recorded with a spec: the schemas of its library, and what each op gave on each of the
   * spec's examples on the cpu ({@code ./opcheck baseline --spec}).
   *
   * @param schemas the schema baseline, its {@code values} not yet named
   * @param values the recorded outputs
   */
  public record Recording(SchemaBaseline schemas, ValueBaseline values) {}

  /**
   * Records the schemas of {@code spec}'s library ({@code library} when not null) and the outputs of
   * every op of the spec on each of its examples on the cpu, their tensors drawn from {@code seed}.
   *
   * @throws LibraryLoadException when the library cannot be loaded, or crashes while loading
   * @throws SpecException when the spec is invalid, or an example does not fit its op
   */
  public static Recording record(Path spec, Path library, long seed) throws LibraryLoadException, SpecException {
    return OneWorkerCommands.record(spec, library, seed);
  }

  /**
   * What {@code ./opcheck model} found, as data.
   *
   * @param info libtorch and the libraries the worker loaded
   * @param model the model's call sites and forward parameters, or why it did not load; null when the
   *     worker died loading it
   * @param forward what forward gave, or null when it was not run (no inputs, the model did not load,
   *     or the worker died running it)
   * @param died why the worker died loading the model ({@code model} null) or running forward, else null
   */
  public record ModelRun(WorkerInfo info, ModelInfo model, ModelInfo.Forward forward, String died) {}

  /**
   * Loads {@code libraries} and then {@code model} in a worker, and runs its forward on {@code inputs}
   * when there are any (for {@code ./opcheck model}).
   *
   * @throws LibraryLoadException when a library cannot be loaded, or crashes while loading
   */
  public static ModelRun model(List<Path> libraries, Path model, List<String> inputs, long seed, Optional<Path> expect)
      throws LibraryLoadException, SpecException {
    return OneWorkerCommands.model(libraries, model, inputs, seed, expect);
  }

  /**
   * What {@code ./opcheck model X.pt2} found, as data.
   *
   * @param info libtorch and the libraries the worker loaded
   * @param run what loading (and running) the package gave; null when it was not loaded (the caller said not to, or
   *     the worker died)
   * @param died why the worker died loading or running it, else null
   */
  public record PackageRun(WorkerInfo info, dev.opcheck4j.torch.AotiRun run, String died) {}

  /**
   * Loads {@code libraries} in a worker, then, when {@code load} says so on what they register, the AOTInductor
   * package {@code file} (its {@code model}), which it runs on {@code inputs} when there are any (for
   * {@code ./opcheck model X.pt2}).
   *
   * @throws LibraryLoadException when a library cannot be loaded, or crashes while loading
   */
  public static PackageRun packageRun(List<Path> libraries, Path file, String model, List<String> inputs, long seed,
      Optional<Path> expect, java.util.function.Predicate<WorkerInfo> load) throws LibraryLoadException, SpecException {
    return OneWorkerCommands.packageRun(libraries, file, model, inputs, seed, expect, load);
  }

  /**
   * What a package check looks at, for a package read before the run: {@code p} against every op {@code libraries}
   * register, on a machine with a GPU when {@code cuda}.
   */
  public static dev.opcheck4j.checks.PackageSubject packageSubject(RunPlan.Package p, List<LibraryInfo> libraries,
      boolean cuda) {
    return PackageRuns.subject(p, libraries, cuda);
  }
}
