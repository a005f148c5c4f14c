package dev.opcheck4j.run;

import dev.opcheck4j.run.cache.ResultCache;
import dev.opcheck4j.run.plan.Interruption;
import dev.opcheck4j.run.plan.RunBlock;
import dev.opcheck4j.run.supervisor.WorkerPool;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.run.plan.Isolation;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.plan.RunTarget;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.link.WorkerInfo;
import dev.opcheck4j.spec.NearestName;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.LibraryLoadException;
import dev.opcheck4j.spec.PackageEntry;
import dev.opcheck4j.torch.AotiPackage;
import dev.opcheck4j.torch.SchemaBaseline;
import dev.opcheck4j.torch.UnknownOpException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What a run request resolves to before its plan: each target's spec (read by {@link Launcher#read}) and library path made
 * absolute, the checks chosen, the schema baseline read, the result cache opened (its key hashed
 * beside the first worker's start), and the checks that stop a run before it starts (an unknown
 * {@code --op}, an example that does not fit its schema, a reference that does not compile).
 */
final class RunSetup {
  /** What the first worker (or the result cache, which remembers it) loaded, and the cache, or null. */
  record Started(WorkerInfo info, ResultCache cache) {}

  /**
   * The entries whose reference does not compile: they get no job; {@code errors} are the run's input
   * errors, one located line each.
   */
  record Refused(Set<OpSpec> entries, List<String> errors) {}

  private final RunRequest request;
  private final List<Check> checks;
  private final List<RunTarget> resolved = new ArrayList<>();
  /** Per target, the spec's entries the request selects; null for a library without a spec. */
  private final List<List<OpSpec>> specOps = new ArrayList<>();
  /** Per target, its spec as read (by {@link Launcher#read}: the run's one read of it); null for a library without a spec. */
  private final List<SpecReader.Parsed> specs = new ArrayList<>();
  /** Per target, what its spec makes of findings ({@code "warnings-as-errors"}, {@code "strict"}); the default without one. */
  private final List<SeverityPolicy> policies = new ArrayList<>();
  /** Per target, its spec's minimum line coverage, else the run's (null: none). */
  private final List<Double> minimums = new ArrayList<>();
  /** Per target, whether every try is made: the run's {@code --all-tries}, or its spec's {@code "all-tries"}. */
  private final List<Boolean> allTries = new ArrayList<>();
  private final SchemaBaseline baseline;
  /** Per target, the packages checked with its library-wide checks, read. */
  private final List<List<RunPlan.Package>> packages = new ArrayList<>();

  private RunSetup(RunRequest request) throws SpecException {
    this.request = request;
    this.checks = request.checks().isEmpty() ? BuiltinChecks.all() : BuiltinChecks.select(request.checks());
    for (RunTarget t : request.targets()) {
      if (t.spec() != null) {
        SpecReader.Parsed parsed = java.util.Objects.requireNonNull(t.read(), "a spec is read once, by Launcher.read");
        SpecFile file = parsed.file();
        specs.add(parsed);
        policies.add(new SeverityPolicy(file.warningsAsErrors(), file.strict()));
        minimums.add(file.minLineCoverage() != null ? file.minLineCoverage() : request.minLineCoverage());
        allTries.add(file.allTries() || request.allTries());
        Path lib = t.library() != null ? t.library() : file.library();
        resolved.add(new RunTarget(t.spec().toAbsolutePath(), lib.toAbsolutePath()));
        specOps.add(file.selectOps(request.ops()));
      } else {
        resolved.add(new RunTarget(null, t.library().toAbsolutePath()));
        specOps.add(null);
        specs.add(null);
        policies.add(SeverityPolicy.DEFAULT);
        minimums.add(request.minLineCoverage());
        allTries.add(request.allTries());
      }
    }
    if (request.cache() != null) {
      ResultCache.prepare(request.cache());
    }
    this.baseline = request.baseline() == null ? null : readBaseline(request.baseline());
    for (int i = 0; i < resolved.size(); i++) {
      List<PackageEntry> named = new ArrayList<>(specs.get(i) == null ? List.of() : specs.get(i).file().packages());
      if (i == 0) {
        request.packages().forEach(p -> named.add(PackageEntry.of(p.toAbsolutePath(), "--package " + p)));
      }
      List<RunPlan.Package> read = new ArrayList<>();
      for (PackageEntry e : named) {
        read.add(readPackage(e, baseline));
      }
      packages.add(read);
    }
  }

  /**
   * The package {@code e} names, read, with the baseline it was compiled with (its own, else the run's).
   *
   * @throws SpecException naming where it was named, when it is missing or no AOTInductor package
   */
  private static RunPlan.Package readPackage(PackageEntry e, SchemaBaseline runBaseline) throws SpecException {
    if (!Files.isRegularFile(e.file())) {
      throw new SpecException(e.where(), "package not found: " + e.file());
    }
    try {
      return new RunPlan.Package(e, AotiPackage.read(e.file()),
          e.baseline() == null ? runBaseline : readBaseline(e.baseline()));
    } catch (AotiPackage.Unreadable x) {
      throw new SpecException(e.where(), x.getMessage());
    }
  }

  /**
   * Reads what {@code request} names.
   *
   * @throws SpecException when a spec file, the cache dir or the baseline is invalid
   * @throws IllegalArgumentException naming an unknown check or family
   */
  static RunSetup of(RunRequest request) throws SpecException {
    return new RunSetup(request);
  }

  private static SchemaBaseline readBaseline(Path path) throws SpecException {
    try {
      return SchemaBaseline.read(path);
    } catch (IOException e) {
      String file = path.toString();
      String m = e.getMessage();
      throw new SpecException(file, m.startsWith(file + ": ") ? m.substring(file.length() + 2) : m);
    }
  }

  RunRequest request() {
    return request;
  }

  List<Check> checks() {
    return checks;
  }

  /** The schema baseline the request names, or null. */
  SchemaBaseline baseline() {
    return baseline;
  }

  /** The runtimes the spec files claim ({@code "runtimes"}), each once, in the order they name them; empty: none. */
  List<String> specRuntimes() {
    java.util.Set<String> all = new java.util.LinkedHashSet<>();
    specs.stream().filter(java.util.Objects::nonNull).forEach(p -> all.addAll(p.file().runtimes()));
    return List.copyOf(all);
  }

  /** Each target's library, absolute. */
  List<Path> libraries() {
    return resolved.stream().map(RunTarget::library).toList();
  }

  /** Each target's spec file, absolute, or null for a library without one. */
  List<Path> specs() {
    return resolved.stream().map(RunTarget::spec).toList();
  }

  /** The run block of this run, started at {@code started} and {@code ms} long so far. */
  RunInfo runBlock(List<RunInfo.DeviceInfo> devices, Instant started, long ms) {
    return RunBlock.of(request, libraries(), checks, devices, started, ms, null, null);
  }

  /** What every worker of the run is told to load. */
  Protocol.Init init() {
    int workers = request.isolation() == Isolation.IN_PROCESS ? 1 : request.jobs();
    return new Protocol.Init(resolved.stream().map(RunTarget::library).toList(),
        request.baseline() == null ? null : request.baseline().toAbsolutePath(), workers, request.runtime().classPath());
  }

  /**
   * Starts {@code pool}'s first worker, and opens the result cache if the request has one: a cache
   * that knows the libraries spares the first worker until an op is not cached; one that does not
   * hashes them (libtorch: seconds) on a thread of its own while the first worker starts.
   *
   * @throws Interruption.Stopped when the run was stopped before the worker was ready
   */
  Started start(WorkerPool pool) throws LibraryLoadException, SpecException {
    if (request.cache() == null) {
      return new Started(pool.start(), null);
    }
    // a cache that holds no libraries' entry (a fresh dir) cannot spare the worker: it starts at once
    if (request.isolation() == Isolation.WORKERS && ResultCache.holdsLibraries(request.cache())
        && ResultCache.remembers(request.cache(), resolved, System.getenv())) {
      ResultCache cache = openCache();
      Optional<WorkerInfo> known = cache.libraries();
      if (known.isPresent()) {
        return new Started(known.get(), cache);
      }
      WorkerInfo info = pool.start();
      cache.storeLibraries(info);
      return new Started(info, cache);
    }
    // in-process kernels are loaded by start() itself
    CompletableFuture<ResultCache> opening = new CompletableFuture<>();
    Thread hashing = new Thread(() -> {
      try {
        opening.complete(openCache());
      } catch (Throwable t) {
        opening.completeExceptionally(t);
      }
    }, "opcheck4j-cache-key");
    hashing.setDaemon(true);
    hashing.start();
    WorkerInfo info = pool.start();
    ResultCache cache;
    try {
      cache = opening.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    cache.storeLibraries(info);
    return new Started(info, cache);
  }

  private ResultCache openCache() {
    return ResultCache.open(request.cache(), request, resolved, specs, checks, System.getenv(),
        line -> System.err.println("opcheck: " + line));
  }

  /**
   * The plan's targets: each library as the worker loaded it, with its spec's selected entries (or,
   * without a spec, every op it registers that the request selects).
   *
   * @throws SpecException when an {@code --op} names nothing, or an example does not fit its schema
   */
  List<RunPlan.Target> targets(WorkerInfo info) throws SpecException {
    List<RunPlan.Target> targets = new ArrayList<>();
    for (int i = 0; i < resolved.size(); i++) {
      LibraryInfo lib = info.libraries().get(i);
      List<OpSpec> ops = specOps.get(i) != null ? specOps.get(i)
          : SpecFile.select(lib.opNames().stream().map(OpSpec::bare).toList(), request.ops());
      targets.add(new RunPlan.Target(lib, ops, request.targets().get(i).source(), i, policies.get(i), packages.get(i),
          minimums.get(i), allTries.get(i)));
    }
    List<String> specErrors = new ArrayList<>(unknownOps(request.ops(), targets));
    specErrors.addAll(Preflight.errors(targets));
    if (!specErrors.isEmpty()) {
      throw new SpecException(specErrors);
    }
    return targets;
  }

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
          || t.ops().stream().anyMatch(o -> o.op().equals(op) && !o.ref().equals(op))
          || SpecFile.isNamespace(op) && t.library().namespaces().contains(SpecFile.namespace(op)));
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
   * Compiles the targets' references in {@code kernels}' worker. A reference that does not compile is
   * its own entry's input error: that entry gets no job, the others run, and the error is the run's,
   * as an op a library lacks is (exit 2 at the end). The entry stays in the plan, so that the entries
   * after it keep their positions; a worker reads no spec: each unit names its entry by the {@code ref}
   * the parent sent it under ({@code Protocol.OpenOp}).
   *
   * @throws SpecException when compiling killed the worker
   */
  Refused refused(List<RunPlan.Target> targets, Kernels kernels) throws SpecException {
    List<String> errors = new ArrayList<>();
    Set<OpSpec> refused = Collections.newSetFromMap(new IdentityHashMap<>());
    Preflight.References compiled = Preflight.referenceErrors(targets, kernels, request.timeout());
    if (compiled.died() != null) {
      throw new SpecException(List.of("compiling the spec's references killed the worker: " + compiled.died().message()));
    }
    Map<Preflight.Entry, List<String>> byEntry = compiled.errors();
    byEntry.values().forEach(errors::addAll);
    for (RunPlan.Target t : targets) {
      for (int i = 0; i < t.ops().size(); i++) {
        if (byEntry.containsKey(new Preflight.Entry(t.index(), i))) {
          refused.add(t.ops().get(i));
        }
      }
    }
    return new Refused(refused, errors);
  }
}
