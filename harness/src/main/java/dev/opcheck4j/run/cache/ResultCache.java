package dev.opcheck4j.run.cache;

import dev.opcheck4j.run.plan.Versions;
import dev.opcheck4j.run.session.CheckOn;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.plan.RunTarget;
import dev.opcheck4j.run.link.WorkerInfo;
import dev.opcheck4j.run.link.Wire;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import dev.opcheck4j.spec.OpSpec;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Results of ops whose inputs did not change ({@code --cache DIR}): each op's results under a key
 * made of everything they depend on, so that a re-run replays them without a worker. The key of an
 * op covers, by content: each library and every non-system library it loads or the environment
 * preloads, the libtorch build the workers load, the op's spec entry (read as the spec reader reads
 * it) and the files the entry names, the spec's global settings, the baseline and its recorded
 * values; and the harness version, the environment that changes what kernels load or compute
 * ({@link #ENVIRONMENT}), and the run's seed, tries, devices, checks, timeout, severity and required
 * families. What the worker found in the libraries (their ops and schemas) is kept under the
 * libraries' part of the key, so a run whose ops are all cached starts no worker.
 *
 * <p>Whatever cannot be keyed (a spec that no longer parses, a file that cannot be read) means no
 * replay, never a key without it. Entries are written to a temporary file and moved into place, so
 * concurrent runs sharing a directory see a whole entry or none. Each carries the SHA-256 of its
 * text, and an op's entry must hold a result for every unit the op's plan runs: an entry that fails
 * either is ignored with one line and the op runs.
 */
public final class ResultCache {
  /** The format of an entry; part of every key, so a new format never reads an old entry. */
  private static final String FORMAT = "opcheck4j-cache-2";

  /**
   * The environment that enters the key: what changes which code a worker loads ({@code LD_PRELOAD},
   * {@code LD_LIBRARY_PATH}) or how kernels compute (OpenMP, MKL and OpenBLAS threading, libtorch's
   * and CUDA's own switches), by exact name or by prefix.
   */
  static final List<String> ENVIRONMENT = List.of("LD_PRELOAD", "LD_LIBRARY_PATH", "OMP_*", "GOMP_*", "KMP_*",
      "MKL_*", "OPENBLAS_*", "TORCH_*", "PYTORCH_*", "ATEN_*", "CUDA_*");
  /** Read by the harness, not by kernels: the worker runs without it (see WorkerProcess). */
  private static final java.util.Set<String> ENVIRONMENT_IGNORED = java.util.Set.of("TORCH_CPP_LOG_LEVEL");

  private final Path dir;
  private final String runKey;
  /** Per target: the entries of each op of its spec, or null when its spec could not be keyed (no replay). */
  private final List<java.util.Map<String, String>> entries;
  private final Consumer<String> notes;

  /** An op's cached results, as {@link Wire} writes them. */
  record Entry(String key, List<CheckResult> results) {}

  /** The worker's view of the libraries, as {@link Wire} writes it. */
  record Libraries(String key, WorkerInfo info) {}

  private ResultCache(Path dir, String runKey, List<java.util.Map<String, String>> entries, Consumer<String> notes) {
    this.dir = dir;
    this.runKey = runKey;
    this.entries = entries;
    this.notes = notes;
  }

  /**
   * Makes the cache directory {@code dir}, or says in one line why it cannot be one.
   *
   * @throws SpecException naming {@code dir} when it is a file, or cannot be made
   */
  public static void prepare(Path dir) throws SpecException {
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new SpecException(dir.toString(), "--cache names a file, not a directory; give a directory "
          + "(it is made when missing)");
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new SpecException(dir.toString(), "the --cache directory cannot be made: " + e);
    }
  }

  /**
   * The cache in {@code dir} (made by {@link #prepare}) for {@code request}, whose targets resolve to
   * {@code targets} (absolute spec and library paths) with their specs as the run read them ({@code
   * specs}, null for a library without one: the key is of what the run checks, not of a file read
   * again), in the environment {@code env}; {@code notes} receives the one-line notes (an entry ignored).
   */
  public static ResultCache open(Path dir, RunRequest request, List<RunTarget> targets,
      List<SpecReader.Parsed> specs, List<Check> checks, java.util.Map<String, String> env, Consumer<String> notes) {
    FileHashes hashes = FileHashes.of(dir, env);
    Versions versions = Versions.current();
    StringBuilder key = new StringBuilder(FORMAT).append('\n').append(versions.tool()).append('\n');
    // the runtime the workers start on (check --runtime): another runtime's results are never replayed
    dev.opcheck4j.run.plan.LibtorchRuntime runtime = request.runtime();
    key.append("libtorch ").append(runtime.own() ? versions.torch() : runtime.torch()).append(' ')
        .append(runtime.own() ? versions.presets() : runtime.presets()).append('\n');
    for (Path jar : runtime.classPath()) {
      key.append("runtime jar ").append(jar).append(' ').append(hashes.of(jar)).append('\n');
    }
    for (Path f : runtime.own() ? NativeFiles.libtorchFiles() : List.<Path>of()) {
      key.append("libtorch loads ").append(f).append(' ').append(hashes.of(f)).append('\n');
    }
    environment(env).forEach((k, v) -> key.append("env ").append(k).append('=').append(v).append('\n'));
    List<java.util.Map<String, String>> entries = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      RunTarget t = targets.get(i);
      key.append("library ").append(hashes.of(t.library())).append('\n');
      for (Path dep : NativeFiles.dependencies(t.library(), env)) {
        key.append("loads ").append(dep).append(' ').append(hashes.of(dep)).append('\n');
      }
      if (t.spec() == null) {
        entries.add(java.util.Map.of());
        continue;
      }
      SpecKey spec = SpecKey.of(specs.get(i));
      entries.add(spec == null ? null : spec.entries());
      key.append("settings ").append(spec == null ? "unkeyed" : spec.settings()).append('\n');
    }
    // the AOTInductor packages the library-wide checks read (aoti.*): each file's content, as a library's
    for (Path f : packageFiles(request, specs)) {
      key.append("package file ").append(f).append(' ').append(hashes.of(f)).append('\n');
    }
    key.append("seed ").append(request.seed()).append("\ntries ").append(request.tries())
        .append(request.allTries() ? " all" : " as a ceiling")
        .append("\ndevices ").append(request.devices()).append("\nchecks ").append(checks.stream().map(Check::id).toList())
        .append("\ntimeout ").append(request.timeout()).append("\nseverity ").append(request.severity())
        .append("\nrequire ").append(request.require())
        .append("\nbaseline ").append(request.baseline() == null ? "-" : baselineHash(request.baseline()));
    return new ResultCache(dir, sha256(key.toString()), entries, notes);
  }

  /** Every file the run's AOTInductor packages read: each package, its inputs, outputs and baseline. */
  private static List<Path> packageFiles(RunRequest request, List<SpecReader.Parsed> specs) {
    List<dev.opcheck4j.spec.PackageEntry> entries = new ArrayList<>();
    specs.stream().filter(java.util.Objects::nonNull).forEach(p -> entries.addAll(p.file().packages()));
    request.packages().forEach(p -> entries.add(dev.opcheck4j.spec.PackageEntry.of(p.toAbsolutePath(), "--package")));
    List<Path> files = new ArrayList<>();
    for (dev.opcheck4j.spec.PackageEntry e : entries) {
      files.add(e.file());
      files.addAll(e.inputs());
      java.util.Optional.ofNullable(e.expect()).ifPresent(files::add);
      java.util.Optional.ofNullable(e.baseline()).ifPresent(files::add);
    }
    return files;
  }

  /** The variables of {@code env} that enter the key ({@link #ENVIRONMENT}), sorted by name. */
  static java.util.SortedMap<String, String> environment(java.util.Map<String, String> env) {
    java.util.SortedMap<String, String> out = new java.util.TreeMap<>();
    env.forEach((name, value) -> {
      boolean keyed = !ENVIRONMENT_IGNORED.contains(name) && ENVIRONMENT.stream().anyMatch(p -> p.endsWith("*")
          ? name.startsWith(p.substring(0, p.length() - 1)) : name.equals(p));
      if (keyed) {
        out.put(name, value);
      }
    });
    return out;
  }

  /** The worker's view of the libraries, if a run with the same libraries stored it. */
  public Optional<WorkerInfo> libraries() {
    return read("libraries", runKey, Libraries.class).filter(l -> l.key().equals(runKey)).map(Libraries::info);
  }

  /**
   * Whether the cache in {@code dir} holds what a worker found in some libraries: without it (a fresh
   * dir) a run needs a worker whatever its key, and starts one before the key is made.
   */
  public static boolean holdsLibraries(Path dir) {
    return Files.isDirectory(dir.resolve("libraries"));
  }

  public void storeLibraries(WorkerInfo info) {
    write("libraries", runKey, Wire.write(new Libraries(runKey, info)));
  }

  /**
   * The key of target {@code target}'s library-wide checks ({@code entry} null) or of one of its
   * entries (an op may have several, each its own contract with results of its own, so the entry is
   * named too); null when it cannot be keyed (its spec changed under the run or names a file that
   * cannot be read): then nothing is replayed or stored for it.
   */
  public String key(int target, OpSpec entry) {
    String op = entry == null ? null : entry.op();
    java.util.Map<String, String> spec = entries.get(target);
    if (spec == null) {
      return null;
    }
    StringBuilder k = new StringBuilder(runKey).append("\ntarget ").append(target).append("\nop ").append(op)
        .append("\nentry ").append(entry == null ? "-" : entry.ref());
    if (op != null && spec.containsKey(op)) {
      String written = spec.get(op);
      if (written == null) {
        return null;
      }
      k.append('\n').append(written);
    }
    return sha256(k.toString());
  }

  /**
   * The results stored under {@code key}, if any, and if they hold a result for every unit of
   * {@code plan} (each a check on a device, or on none): an entry that does not is
   * corrupt, ignored with one line.
   */
  public Optional<List<CheckResult>> results(String key, java.util.Collection<CheckOn> plan) {
    Path file = file("ops", key);
    Optional<Entry> entry = read("ops", key, Entry.class).filter(e -> e.key().equals(key));
    if (entry.isEmpty()) {
      return Optional.empty();
    }
    List<CheckOn> missing = plan.stream().filter(u -> entry.get().results().stream().noneMatch(u::isOf)).toList();
    if (!missing.isEmpty()) {
      notes.accept("cache: ignoring corrupt entry " + file + " (" + (entry.get().results().isEmpty() ? "no results"
          : "no result for " + missing.get(0)
          + (missing.size() > 1 ? " and " + (missing.size() - 1) + " more" : "")) + ")");
      return Optional.empty();
    }
    return Optional.of(entry.get().results());
  }

  /**
   * Stores {@code results} under {@code key}, unless one of them is Errored (a harness failure, or a
   * deadline a busy machine can miss, is not a fact about the op to replay). None is an entry too, for
   * a job whose plan has no unit (no library-wide check selected): its replay starts no worker.
   */
  public void store(String key, List<CheckResult> results) {
    if (results.stream().anyMatch(r -> r.outcome() == Outcome.ERRORED)) {
      return;
    }
    write("ops", key, Wire.write(new Entry(key, results)));
  }

  private Path file(String kind, String key) {
    return dir.resolve(kind).resolve(key.substring(0, 2)).resolve(key + ".json");
  }

  /** An entry's text: the SHA-256 of its body on the first line, then the body (one line of {@link Wire}). */
  private <T> Optional<T> read(String kind, String key, Class<T> type) {
    Path file = file(kind, key);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      notes.accept("cache: ignoring " + file + ": " + e.getMessage());
      return Optional.empty();
    }
    int nl = text.indexOf('\n');
    String body = nl < 0 ? "" : text.substring(nl + 1).strip();
    if (nl < 0 || !text.substring(0, nl).equals(sha256(body))) {
      notes.accept("cache: ignoring corrupt entry " + file + " (its checksum does not match its text)");
      return Optional.empty();
    }
    try {
      return Optional.of(Wire.read(body, type));
    } catch (RuntimeException e) {
      notes.accept("cache: ignoring corrupt entry " + file + " (" + e.getClass().getSimpleName() + ")");
      return Optional.empty();
    }
  }

  private void write(String kind, String key, String body) {
    Path file = file(kind, key);
    try {
      Files.createDirectories(file.getParent());
      Path tmp = Files.createTempFile(file.getParent(), key, ".tmp");
      Files.writeString(tmp, sha256(body) + "\n" + body + "\n", StandardCharsets.UTF_8);
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      notes.accept("cache: cannot write " + file + ": " + e.getMessage());
    }
  }

  /** The baseline's hash and, when it names one, its side file of recorded outputs (baseline.values reads both). */
  private static String baselineHash(Path baseline) {
    String values = "-";
    try {
      String side = dev.opcheck4j.torch.SchemaBaseline.read(baseline).values();
      if (side != null) {
        Path file = baseline.toAbsolutePath().resolveSibling(side);
        values = Files.exists(file) ? FileHashes.content(file) : "missing " + side;
      }
    } catch (IOException | RuntimeException e) {
      values = "unreadable"; // the run reports the baseline's own error; its results are not worth caching apart
    }
    return FileHashes.content(baseline) + " values " + values;
  }

  /**
   * Whether the cache in {@code dir}, or the user's cache on this machine ({@link FileHashes}), remembers
   * the hash of every large file the key reads for {@code targets} in {@code env} (libraries, what they
   * load, the libtorch build), as they are now: then opening it reads none of them whole. When it does
   * not (a first run on this machine, a new libtorch), opening it reads libtorch, which takes seconds.
   */
  public static boolean remembers(Path dir, List<RunTarget> targets, java.util.Map<String, String> env) {
    FileHashes hashes = FileHashes.of(dir, env);
    try {
      List<Path> files = new ArrayList<>(NativeFiles.libtorchFiles());
      for (RunTarget t : targets) {
        files.addAll(NativeFiles.dependencies(t.library(), env));
        files.add(t.library());
      }
      for (Path f : files) {
        if (!hashes.known(f)) {
          return false;
        }
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
