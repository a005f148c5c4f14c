package dev.opcheck4j.run;

import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.worker.ExampleSearch;
import dev.opcheck4j.run.worker.KernelDeath;
import dev.opcheck4j.run.worker.Kernels;
import dev.opcheck4j.run.worker.ModelInfo;
import dev.opcheck4j.run.worker.Protocol;
import dev.opcheck4j.run.worker.WorkerInfo;
import dev.opcheck4j.run.worker.WorkerProcess;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.checks.BuiltinChecks;
import dev.opcheck4j.checks.CheckCatalog;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.run.worker.LocalKernels;
import dev.opcheck4j.spec.NearestName;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.torch.SchemaBaseline;
import dev.opcheck4j.torch.ValueBaseline;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.LibraryLoadException;
import dev.opcheck4j.torch.UnknownOpException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
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
 */
public final class Launcher {
  private Launcher() {}

  /**
   * One line for each {@code --op} that no spec entry and no library names, with the registered names
   * nearest to it by edit distance: a typo stops the run before it starts rather than after it.
   */
  static List<String> unknownOps(List<String> ops, List<RunPlan.Target> targets) {
    List<String> lines = new ArrayList<>();
    List<String> known = new ArrayList<>();
    targets.forEach(t -> known.addAll(t.library().opNames()));
    for (String op : ops) {
      boolean named = targets.stream().anyMatch(t -> t.library().op(op).isPresent()
          || t.ops().stream().anyMatch(o -> o.op().equals(op) && !o.ref().equals(op)));
      if (!named) {
        List<String> near = UnknownOpException.nearest(op, known, 3);
        if (near.isEmpty()) {
          near = known.stream().sorted(Comparator.comparingInt((String n) -> NearestName.distance(op, n))
              .thenComparing(n -> n)).limit(3).toList();
        }
        lines.add("--op " + op + ": no spec entry or library names it" + (near.isEmpty() ? ""
            : "; nearest: " + String.join(", ", near)));
      }
    }
    return lines;
  }

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
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    List<Check> checks = request.checks().isEmpty() ? BuiltinChecks.all() : BuiltinChecks.select(request.checks());
    List<RunRequest.Target> resolved = new ArrayList<>();
    List<List<OpSpec>> specOps = new ArrayList<>();
    List<Boolean> strict = new ArrayList<>();
    for (RunRequest.Target t : request.targets()) {
      if (t.spec() != null) {
        SpecFile file = SpecReader.read(t.spec(), Preflight.checkNames());
        strict.add(file.warningsAsErrors());
        Path lib = t.library() != null ? t.library() : file.library();
        resolved.add(new RunRequest.Target(t.spec().toAbsolutePath(), lib.toAbsolutePath()));
        specOps.add(file.selectOps(request.ops()));
      } else {
        resolved.add(new RunRequest.Target(null, t.library().toAbsolutePath()));
        specOps.add(null);
        strict.add(false);
      }
    }
    if (request.cache() != null) {
      ResultCache.prepare(request.cache());
    }
    SchemaBaseline baseline = null;
    if (request.baseline() != null) {
      try {
        baseline = SchemaBaseline.read(request.baseline());
      } catch (java.io.IOException e) {
        String file = request.baseline().toString();
        String m = e.getMessage();
        throw new SpecException(file, m.startsWith(file + ": ") ? m.substring(file.length() + 2) : m);
      }
    }
    Path dir = request.reportDir() != null ? request.reportDir() : tempDir();
    // a run that never starts (a library that does not load, a spec error) leaves no report dir behind
    boolean dirExisted = request.reportDir() != null && Files.exists(dir);
    if (dirExisted) {
      deleteStaleWorkerFiles(dir);
    }
    boolean ran = false;
    int jobs = request.isolation() == RunRequest.Isolation.IN_PROCESS ? 1 : request.jobs();
    Protocol.Init init = new Protocol.Init(resolved, request.ops(),
        request.baseline() == null ? null : request.baseline().toAbsolutePath(), jobs);
    List<Slot> slots = new ArrayList<>();
    // every worker of the process, including one still loading its libraries
    stop.whenRequested(WorkerProcess::terminateAll);
    RunOutcome outcome = null;
    Path keep = null;
    try {
      Slot first = new Slot(request, dir, init, new AtomicInteger(), stop);
      slots.add(first);
      ResultCache cache = null;
      WorkerInfo info;
      try {
        if (request.cache() == null) {
          info = startWorkers(first, slots);
        } else if (request.isolation() == RunRequest.Isolation.WORKERS && ResultCache.remembers(request.cache(), resolved, System.getenv())) {
          // a cache that knows the libraries spares the first worker until an op is not cached
          cache = openCache(request, resolved, checks);
          java.util.Optional<WorkerInfo> known = cache.libraries();
          if (known.isPresent()) {
            info = known.get();
          } else {
            info = startWorkers(first, slots);
            cache.storeLibraries(info);
          }
        } else {
          // hashing libraries the cache has not seen (libtorch: seconds) while the first worker starts;
          // in-process kernels are loaded by start() itself
          java.util.concurrent.CompletableFuture<ResultCache> opening = new java.util.concurrent.CompletableFuture<>();
          Thread hashing = new Thread(() -> {
            try {
              opening.complete(openCache(request, resolved, checks));
            } catch (Throwable t) {
              opening.completeExceptionally(t);
            }
          }, "opcheck4j-cache-key");
          hashing.setDaemon(true);
          hashing.start();
          info = startWorkers(first, slots);
          try {
            cache = opening.join();
          } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
          }
          cache.storeLibraries(info);
        }
      } catch (Interruption.Stopped s) {
        RunInfo run = RunBlock.of(request, resolved.stream().map(RunRequest.Target::library).toList(), checks,
            List.of(), started, (System.nanoTime() - t0) / 1_000_000, null, null)
            .withCompletion(RunInfo.Completion.interruptedBy(stop.signal()));
        return new RunOutcome(new RunReport(run, CheckCatalog.builtin(), List.of()), List.of(), List.of(), List.of());
      }
      List<RunPlan.Target> targets = new ArrayList<>();
      for (int i = 0; i < resolved.size(); i++) {
        LibraryInfo lib = info.libraries().get(i);
        List<OpSpec> ops = specOps.get(i) != null ? specOps.get(i)
            : SpecFile.select(lib.opNames().stream().map(OpSpec::bare).toList(), request.ops());
        targets.add(new RunPlan.Target(lib, ops, request.targets().get(i).source(), i, new SeverityPolicy(strict.get(i))));
      }
      List<String> specErrors = new ArrayList<>(unknownOps(request.ops(), targets));
      specErrors.addAll(Preflight.errors(targets));
      if (!specErrors.isEmpty()) {
        throw new SpecException(specErrors);
      }
      // a reference that does not compile is its own entry's input error: that entry gets no job, the
      // others run, and the error is the run's, as an op a library lacks is (exit 2 at the end). The
      // entry stays in the plan: units name an entry by its index there, as the workers read the spec
      List<String> referenceErrors = new ArrayList<>();
      Set<OpSpec> refused = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      try {
        Map<String, List<String>> byEntry = Preflight.referenceErrors(targets, first, request.timeout());
        byEntry.values().forEach(referenceErrors::addAll);
        for (RunPlan.Target t : targets) {
          for (int i = 0; i < t.ops().size(); i++) {
            if (byEntry.containsKey(Preflight.key(t.index(), i))) {
              refused.add(t.ops().get(i));
            }
          }
        }
      } catch (KernelDeath d) {
        throw new SpecException(List.of("compiling the spec's references killed the worker: " + d.getMessage()));
      }
      ran = true;
      List<Device> devices = request.devices().isEmpty() ? info.devicesUnderTest() : request.devices();
      List<Path> libraries = resolved.stream().map(RunRequest.Target::library).toList();
      RunInfo run = RunBlock.of(request, libraries, checks, RunBlock.devices(request.devices(), info.cudaAvailable()),
          started, 0, null, null);
      listener.runStarted(run);
      RunPlan plan = new RunPlan(targets, devices, checks, request.seed(), request.tries(), new SeverityPolicy(request.warningsAsErrors()),
          request.timeout(), baseline, request.require());
      List<Job> all = jobs(plan, request.shard(), refused);
      listener.planned((int) all.stream().filter(j -> j.op() != null).count());
      Runner runner = new Runner(plan, info.cudaAvailable());
      List<Path> specs = resolved.stream().map(RunRequest.Target::spec).toList();
      try (ResultsFile file = ResultsFile.create(dir, info.torchVersion(), info.presetsVersion(), started,
          checks.stream().map(Check::id).toList(), all.stream().map(j -> name(j)).toList(), plan.tries())) {
        Ordered ordered = new Ordered(all.size(), listener);
        List<String> cachedOps = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = slots.size(); i < Math.min(jobs, all.size()); i++) {
          slots.add(new Slot(request, dir, init, first.numbers, stop));
        }
        while (slots.size() > Math.max(1, Math.min(jobs, all.size()))) {
          slots.remove(slots.size() - 1).close(); // started early for a run with fewer jobs than workers
        }
        boolean completed = false;
        try {
          runAll(runner, all, slots, ordered, file, specs, stop, cache, cachedOps);
          completed = !stop.requested();
          if (!completed) {
            ordered.releaseAll();
          }
        } finally {
          List<String> inputErrors = java.util.stream.Stream.concat(referenceErrors.stream(), runner.inputErrors().stream())
              .sorted().toList();
          long ms = (System.nanoTime() - t0) / 1_000_000;
          RunInfo finished = RunBlock.of(request, libraries, checks, run.devices(), started, ms, null, null)
              .withCached(cachedInPlanOrder(all, cachedOps));
          if (stop.requested()) {
            finished = finished.withCompletion(RunInfo.Completion.interruptedBy(stop.signal()));
          }
          RunListener.RunEnd end = new RunListener.RunEnd(completed, inputErrors);
          file.runFinished(finished, end);
          listener.runFinished(finished, end);
          if (completed || stop.requested()) {
            List<String> ops = all.stream().filter(j -> j.op() != null).map(j -> j.op().op()).toList();
            outcome = new RunOutcome(new RunReport(finished, CheckCatalog.builtin(), ordered.results()), inputErrors,
                ops, info.libraries());
          }
        }
        return outcome;
      }
    } catch (LibraryLoadException e) {
      keep = e.log().orElse(null);
      throw e;
    } finally {
      slots.forEach(Slot::close);
      if (keep != null && request.reportDir() != null) {
        // the log of the worker a library killed: the evidence the one-line message points at
        deleteWorkerLogs(dir, slots.isEmpty() ? 0 : slots.get(0).numbers.get(), keep);
      } else if (keep != null) {
        deleteIfClean(dir, keep);
      } else if (request.reportDir() == null || !ran && !dirExisted) {
        deleteIfClean(dir, null);
      } else if (!ran && !slots.isEmpty()) {
        deleteWorkerLogs(dir, slots.get(0).numbers.get(), null);
      }
    }
  }

  /**
   * What a library registers, as a worker sees it (for {@code ./opcheck list}).
   *
   * @throws LibraryLoadException when it cannot be loaded, or crashes while loading
   */
  public static LibraryInfo describe(Path library) throws LibraryLoadException, SpecException {
    return inOneWorker(List.of(library), (info, slot) -> info.libraries().get(0));
  }

  /**
   * A library and, per op in its order, an example synthesized from the op's schema that the cpu
   * kernel accepts (or why none was found).
   */
  public record Synthesized(LibraryInfo library, List<ExampleSearch.Found> found) {}

  /**
   * Searches, in a worker, an example for every op of {@code library} (for {@code ./opcheck init}).
   *
   * @throws LibraryLoadException when it cannot be loaded, or crashes while loading
   */
  public static Synthesized synthesize(Path library, long seed) throws LibraryLoadException, SpecException {
    return inOneWorker(List.of(library), (info, slot) -> {
      LibraryInfo lib = info.libraries().get(0);
      List<ExampleSearch.Found> found = new ArrayList<>();
      for (LibraryInfo.Op op : lib.ops()) {
        try {
          found.add(slot.run(new Protocol.Synthesize(0, op.name(), seed), slot.request.timeout()).found());
        } catch (KernelDeath d) {
          found.add(new ExampleSearch.Found(java.util.Optional.empty(), "synthesizing an example killed the worker: "
              + d.getMessage()));
        }
      }
      return new Synthesized(lib, found);
    });
  }

  /**
   * The schema baseline of {@code library} as a worker sees it: per op its schema, the dispatch keys
   * with kernels and its tags (for {@code ./opcheck baseline}).
   *
   * @throws LibraryLoadException when it cannot be loaded, or crashes while loading
   */
  public static SchemaBaseline baseline(Path library) throws LibraryLoadException, SpecException {
    return inOneWorker(List.of(library), (info, slot) -> {
      LibraryInfo lib = info.libraries().get(0);
      List<SchemaBaseline.Entry> entries = lib.ops().stream().map(op -> new SchemaBaseline.Entry(op.name(),
          op.schema().toString(), op.dispatchKeys().stream().sorted().distinct().toList(), op.tags())).toList();
      return new SchemaBaseline(SchemaBaseline.FORMAT, lib.path().getFileName().toString(), info.torchVersion(), entries);
    });
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
    SpecFile file = SpecReader.read(spec, Preflight.checkNames());
    Path lib = library != null ? library : file.library();
    return inOneWorker(List.of(lib), (info, slot) -> {
      LibraryInfo li = info.libraries().get(0);
      List<SchemaBaseline.Entry> entries = li.ops().stream().map(op -> new SchemaBaseline.Entry(op.name(),
          op.schema().toString(), op.dispatchKeys().stream().sorted().distinct().toList(), op.tags())).toList();
      List<ValueBaseline.Recorded> recorded = new ArrayList<>();
      for (OpSpec op : file.ops()) {
        if (li.op(op.op()).isEmpty()) {
          continue;
        }
        for (Example ex : op.examples()) {
          Protocol.On on = new Protocol.On(0, op.op(), Device.CPU, ex, seed, op);
          try {
            recorded.add(slot.run(new Protocol.RecordOutputs(on), slot.request.timeout()).recorded());
          } catch (KernelDeath d) {
            recorded.add(new ValueBaseline.Recorded(op.op(), ex.ref(), seed, List.of(), "the worker died: " + d.getMessage()));
          }
        }
      }
      return new Recording(new SchemaBaseline(SchemaBaseline.FORMAT, li.path().getFileName().toString(),
          info.torchVersion(), entries), new ValueBaseline(ValueBaseline.FORMAT, seed, recorded));
    });
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
    return inOneWorker(libraries, (info, slot) -> {
      ModelInfo loaded;
      try {
        loaded = slot.run(new Protocol.LoadModel(model.toAbsolutePath()), slot.request.timeout()).info();
      } catch (KernelDeath d) {
        return new ModelRun(info, null, null, d.getMessage());
      }
      if (loaded.failure() != null || inputs.isEmpty()) {
        return new ModelRun(info, loaded, null, null);
      }
      try {
        ModelInfo.Forward forward = slot.run(new Protocol.Forward(inputs, seed, expect.map(Path::toAbsolutePath)), slot.request.timeout()).forward();
        return new ModelRun(info, loaded, forward, null);
      } catch (KernelDeath d) {
        return new ModelRun(info, loaded, null, d.getMessage());
      }
    });
  }

  /** What a command does with one worker that has loaded its libraries. */
  private interface WorkerTask<T> {
    T run(WorkerInfo info, Slot slot);
  }

  /**
   * Starts one worker loading {@code libraries} (no spec files), runs {@code task} with it, and stops it:
   * the commands other than {@code check} ({@code list}, {@code init}, {@code baseline}, {@code model}).
   *
   * @throws LibraryLoadException when a library cannot be loaded, or crashes while loading
   */
  private static <T> T inOneWorker(List<Path> libraries, WorkerTask<T> task) throws LibraryLoadException, SpecException {
    Path dir = tempDir();
    RunRequest.Builder request = RunRequest.builder().jobs(1);
    libraries.forEach(request::library);
    Protocol.Init init = new Protocol.Init(
        libraries.stream().map(l -> new RunRequest.Target(null, l.toAbsolutePath())).toList(), List.of());
    Slot slot = new Slot(request.build(), dir, init, new AtomicInteger(), new Interruption());
    Path keep = null;
    try {
      return task.run(slot.start(), slot);
    } catch (LibraryLoadException e) {
      keep = e.log().orElse(null);
      throw e;
    } finally {
      slot.close();
      deleteIfClean(dir, keep);
    }
  }

  /**
   * One op's units (or a library's library-wide checks, when {@code op} is null), at {@code position}
   * in the unsharded plan.
   */
  private record Job(int position, RunPlan.Target target, OpSpec op) {}

  /**
   * Every library's library-wide checks, then its ops; a shard keeps its part of the ops, and no entry
   * of {@code refused} (whose reference is an input error) gets a job.
   */
  private static List<Job> jobs(RunPlan plan, RunRequest.Shard shard, Set<OpSpec> refused) {
    List<Job> out = new ArrayList<>();
    int position = 0;
    int opIndex = 0;
    for (RunPlan.Target t : plan.targets()) {
      if (shard.index() == 1) {
        out.add(new Job(position, t, null));
      }
      position++;
      for (OpSpec op : t.ops()) {
        if (shard.owns(opIndex++) && !refused.contains(op)) {
          out.add(new Job(position, t, op));
        }
        position++;
      }
    }
    return out;
  }

  /** What the results file and the listener call a job: its op, or its library's file name. */
  private static String name(Job job) {
    return job.op() == null ? job.target().library().path().getFileName().toString() : job.op().op();
  }

  /** The ops (and library file names) replayed from the cache, in plan order. */
  private static List<String> cachedInPlanOrder(List<Job> all, List<String> cached) {
    java.util.Set<String> set;
    synchronized (cached) {
      set = new java.util.HashSet<>(cached);
    }
    return all.stream().map(Launcher::name).filter(set::contains).toList();
  }

  private static void runAll(Runner runner, List<Job> all, List<Slot> slots, Ordered ordered, ResultsFile file,
      List<Path> specs, Interruption stop, ResultCache cache, List<String> cachedOps) {
    AtomicInteger next = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    List<RuntimeException> failures = new ArrayList<>();
    for (Slot slot : slots) {
      Thread t = new Thread(() -> {
        try {
          for (int i = next.getAndIncrement(); i < all.size() && !stop.requested(); i = next.getAndIncrement()) {
            Job job = all.get(i);
            // the results file as results arrive, the run's listener in plan order
            RunListener sink = RunListener.both(file.job(job.position()), ordered.job(i));
            RunListener.OpEvent op = new RunListener.OpEvent(name(job),
                job.target().library().path().toString(),
                specs.get(job.target().index()) == null ? null : specs.get(job.target().index()).toString(),
                Instant.now());
            sink.opStarted(op);
            String key = cache == null ? null : cache.key(job.target().index(), job.op());
            java.util.Optional<List<CheckResult>> replay = key == null ? java.util.Optional.empty()
                : cache.results(key, runner.units(job.target(), job.op()));
            if (replay.isPresent()) {
              replay.get().forEach(sink::result);
              cachedOps.add(name(job));
            } else {
              List<CheckResult> produced = new ArrayList<>();
              int inputErrors = runner.inputErrors().size();
              RunListener run = key == null ? sink : RunListener.both(sink, new RunListener() {
                @Override
                public void result(CheckResult result) {
                  produced.add(result);
                }
              });
              if (job.op() == null) {
                runner.runLibraryChecks(job.target(), slot, run);
              } else {
                runner.runOp(job.target(), job.op(), slot, run);
              }
              // an op with input errors is not stored: a replay would lose them (and the exit code they give);
              // another job's error in the same moment only costs this op its entry
              if (key != null && !stop.requested() && runner.inputErrors().size() == inputErrors) {
                cache.store(key, produced);
              }
            }
            sink.opFinished(new RunListener.OpEvent(op.op(), op.library(), op.spec(), Instant.now()));
            ordered.finish(i);
          }
        } catch (Interruption.Stopped e) {
          // the run was interrupted: the job's results so far stay, the rest of it is not run
        } catch (RuntimeException e) {
          synchronized (failures) {
            failures.add(e);
          }
        }
      }, "opcheck4j-job-" + threads.size());
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    if (!failures.isEmpty()) {
      throw failures.get(0);
    }
  }

  /**
   * Releases each job's events to the listener in plan order, whatever order the jobs run in: the
   * events of the first unfinished job pass at once, those of later jobs wait until it finishes.
   */
  private static final class Ordered {
    private final List<List<Consumer<RunListener>>> buffers = new ArrayList<>();
    private final boolean[] done;
    private final RunListener listener;
    private final List<CheckResult> released = new ArrayList<>();
    private int next;

    Ordered(int jobs, RunListener listener) {
      for (int i = 0; i < jobs; i++) {
        buffers.add(new ArrayList<>());
      }
      this.done = new boolean[jobs];
      this.listener = listener;
    }

    /** The listener of job {@code job}'s events. */
    RunListener job(int job) {
      return new RunListener() {
        @Override
        public void opStarted(OpEvent op) {
          event(job, l -> l.opStarted(op));
        }

        @Override
        public void unitStarted(UnitEvent unit) {
          event(job, l -> l.unitStarted(unit));
        }

        @Override
        public void result(CheckResult result) {
          event(job, l -> {
            released.add(result);
            l.result(result);
          });
        }

        @Override
        public void opFinished(OpEvent op) {
          event(job, l -> l.opFinished(op));
        }
      };
    }

    private synchronized void event(int job, Consumer<RunListener> event) {
      if (job == next) {
        event.accept(listener);
      } else {
        buffers.get(job).add(event);
      }
    }

    synchronized void finish(int job) {
      done[job] = true;
      while (next < done.length && done[next]) {
        next++;
        if (next < done.length) {
          buffers.get(next).forEach(e -> e.accept(listener));
          buffers.get(next).clear();
        }
      }
    }

    /** Releases the events of every job, finished or not, in plan order (the run was interrupted). */
    synchronized void releaseAll() {
      for (; next < done.length; next++) {
        buffers.get(next).forEach(e -> e.accept(listener));
        buffers.get(next).clear();
      }
    }

    synchronized List<CheckResult> results() {
      return List.copyOf(released);
    }
  }

  /**
   * One job thread's kernels: a worker, started on first use and replaced after it dies. Also the
   * in-process kernels when measuring.
   */
  private static final class Slot implements Kernels {
    private final RunRequest request;
    private final Path dir;
    private final Protocol.Init init;
    private final AtomicInteger numbers;
    private final Interruption stop;
    private Kernels current;
    /** The number {@link #start} gives its worker, taken before another slot's was; 0 for the next one. */
    private int reserved;
    /** This slot's worker being started ahead of its first job ({@link #startEarly}), or null. */
    private java.util.concurrent.FutureTask<WorkerProcess.Started> early;

    Slot(RunRequest request, Path dir, Protocol.Init init, AtomicInteger numbers, Interruption stop) {
      this.request = request;
      this.dir = dir;
      this.init = init;
      this.numbers = numbers;
      this.stop = stop;
    }

    /** A worker started after the run was interrupted is killed at once: none outlives the run. */
    private WorkerProcess.Started started(WorkerProcess.Started s) {
      if (stop.requested()) {
        s.worker().kill();
        throw new Interruption.Stopped();
      }
      return s;
    }

    /** Starts the first worker and returns what it loaded. */
    WorkerInfo start() throws LibraryLoadException, SpecException {
      if (request.isolation() == RunRequest.Isolation.IN_PROCESS) {
        LocalKernels local = LocalKernels.load(init);
        current = local;
        return local.info();
      }
      String[] loading = {null};
      if (stop.requested()) {
        throw new Interruption.Stopped();
      }
      int number = reserved > 0 ? reserved : numbers.incrementAndGet();
      reserved = 0;
      try {
        WorkerProcess.Started s = started(WorkerProcess.start(dir, number, init, startDeadline(), lib -> loading[0] = lib));
        current = s.worker();
        return s.info();
      } catch (IllegalStateException e) {
        if (stop.requested()) {
          throw new Interruption.Stopped(); // the stop killed the worker JVM before it connected
        }
        throw e;
      } catch (WorkerProcess.LoadError e) {
        throw new LibraryLoadException(Path.of(loading[0] == null ? "-" : loading[0]), e.getMessage());
      } catch (KernelDeath d) {
        if (stop.requested()) {
          // killed from outside (a signal to the run), not by the library
          throw new Interruption.Stopped();
        }
        if (loading[0] == null) {
          throw new IllegalStateException("the worker JVM died while loading libtorch: " + d.getMessage());
        }
        Path lib = Path.of(loading[0]);
        throw loadCrash(lib, d, dir.resolve("worker-" + number + ".log"));
      }
    }

    /**
     * A library that killed the worker loading it, one line. The dynamic loader ends the process with
     * status 127 when a static initializer calls a symbol no loaded library defines ("symbol lookup
     * error"): then the line names the symbol, not the exit. The worker's log is kept and named.
     */
    private static LibraryLoadException loadCrash(Path lib, KernelDeath d, Path log) {
      String said;
      try {
        said = Files.readString(log, java.nio.charset.StandardCharsets.ISO_8859_1);
      } catch (IOException e) {
        said = "";
      }
      java.util.regex.Matcher m = SYMBOL_LOOKUP_ERROR.matcher(said);
      if (m.find()) {
        String symbol = m.group(1);
        return new LibraryLoadException(lib, lib + ": undefined symbol " + symbol
            + " (the dynamic loader ended the worker, status 127, when the library's static initializer called it)"
            + (dev.opcheck4j.torch.LibtorchLinkage.isLibtorchSymbol(symbol)
                ? ": " + dev.opcheck4j.torch.LibtorchLinkage.mismatch(Versions.current().torch()) : "")
            + "; worker log: " + log, log);
      }
      return new LibraryLoadException(lib, lib + " crashed the process while loading (in a static initializer): "
          + d.getMessage() + "; worker log: " + log, log);
    }

    /** glibc's lazy-binding failure: "java: symbol lookup error: /x/libop.so: undefined symbol: _ZN..." */
    private static final java.util.regex.Pattern SYMBOL_LOOKUP_ERROR =
        java.util.regex.Pattern.compile("symbol lookup error: .*?undefined symbol: (\\S+)");

    /**
     * Starts this slot's worker on a thread of its own; its first {@link #run} takes it, and a start
     * that failed fails there as a start at that moment would have.
     */
    void startEarly() {
      int number = numbers.incrementAndGet();
      early = new java.util.concurrent.FutureTask<>(() -> WorkerProcess.start(dir, number, init, startDeadline(), lib -> {}));
      Thread t = new Thread(early, "opcheck4j-worker-start-" + number);
      t.setDaemon(true);
      t.start();
    }

    /** The worker started early, waited for. */
    private WorkerProcess.Started earlyWorker() throws KernelDeath, WorkerProcess.LoadError {
      java.util.concurrent.FutureTask<WorkerProcess.Started> task = early;
      early = null;
      try {
        return task.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new Interruption.Stopped();
      } catch (java.util.concurrent.ExecutionException e) {
        if (e.getCause() instanceof KernelDeath d) {
          throw d;
        }
        if (e.getCause() instanceof WorkerProcess.LoadError l) {
          throw l;
        }
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        throw new IllegalStateException(e.getCause());
      }
    }

    /** Loading libtorch and the libraries is one unit of work: it gets --timeout like any other. */
    private Duration startDeadline() {
      return request.timeout();
    }

    @Override
    public List<Done> run(List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) throws KernelDeath {
      if (stop.requested()) {
        throw new Interruption.Stopped();
      }
      if (current == null) {
        try {
          current = started(early != null ? earlyWorker()
              : WorkerProcess.start(dir, numbers.incrementAndGet(), init, startDeadline(), lib -> {})).worker();
        } catch (WorkerProcess.LoadError e) {
          throw new IllegalStateException("a replacement worker could not load the libraries: " + e.getMessage(), e);
        } catch (KernelDeath d) {
          if (stop.requested()) {
            throw new Interruption.Stopped();
          }
          throw d;
        }
      }
      try {
        return current.run(units, guarded, deadline);
      } catch (KernelDeath d) {
        current = null;
        if (stop.requested()) {
          // the signal killed the worker: what the unit would have given is unknown, not a crash
          throw new Interruption.Stopped();
        }
        throw d;
      }
    }

    @Override
    public void close() {
      if (early != null) {
        try {
          current = earlyWorker().worker(); // a run that ended before this slot's first job: it stops below
        } catch (KernelDeath | WorkerProcess.LoadError | RuntimeException e) {
          // it never became a worker; the first one's start said why, if it matters
        }
      }
      if (current != null) {
        current.close();
        current = null;
      }
    }
  }

  /**
   * Starts the first worker and returns what it loaded; with two workers or more, the second one's JVM
   * and libraries start now too, beside the first's, rather than once the first is ready and the run
   * planned: on two cores its start-up (a second of CPU) overlaps the first's instead of following it.
   */
  private static WorkerInfo startWorkers(Slot first, List<Slot> slots) throws LibraryLoadException, SpecException {
    if (first.init.workers() >= 2) {
      first.reserved = first.numbers.incrementAndGet(); // worker-1 is still the first one's
      Slot second = new Slot(first.request, first.dir, first.init, first.numbers, first.stop);
      slots.add(second);
      second.startEarly();
    }
    return first.start();
  }

  private static ResultCache openCache(RunRequest request, List<RunRequest.Target> resolved, List<Check> checks) {
    return ResultCache.open(request.cache(), request, resolved, checks, System.getenv(), line -> System.err.println("opcheck: " + line));
  }

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("opcheck4j-run-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Deletes the logs, step files and answer logs of the first {@code count} workers of a run that never
   * started (its dir was there before), except the log {@code keep} (null: none).
   */
  private static void deleteWorkerLogs(Path dir, int count, Path keep) {
    for (int n = 1; n <= count; n++) {
      try {
        Path log = dir.resolve("worker-" + n + ".log");
        if (!log.equals(keep)) {
          Files.deleteIfExists(log);
        }
        Files.deleteIfExists(dir.resolve("worker-" + n + ".step"));
        Files.deleteIfExists(dir.resolve("worker-" + n + ".answers"));
      } catch (IOException e) {
        // a leftover log of a run that never started is harmless
      }
    }
  }

  /**
   * Deletes the answer logs and step files an earlier run into {@code dir} left (one killed before
   * its workers were ready): a worker's own are deleted as it becomes ready, so none can be this run's.
   */
  private static void deleteStaleWorkerFiles(Path dir) {
    try (java.nio.file.DirectoryStream<Path> stale = Files.newDirectoryStream(dir, "worker-*.{answers,step}")) {
      for (Path p : stale) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // what cannot be listed or deleted is left, as before; it holds nothing this run reads
    }
  }

  /**
   * Deletes a temporary run directory unless a worker left an error file in it (results point there)
   * or it holds {@code keep}, the log a load failure's message names (null: none).
   */
  private static void deleteIfClean(Path dir, Path keep) {
    try (Stream<Path> files = Files.walk(dir)) {
      List<Path> all = files.sorted(Comparator.reverseOrder()).toList();
      if (all.stream().anyMatch(p -> p.getFileName().toString().startsWith("hs_err") || p.equals(keep))) {
        return;
      }
      for (Path p : all) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // a leftover temporary directory is harmless
    }
  }
}
