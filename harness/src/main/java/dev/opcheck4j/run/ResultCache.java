package dev.opcheck4j.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.worker.WorkerInfo;
import dev.opcheck4j.run.worker.Wire;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import dev.opcheck4j.spec.OpSpec;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Results of ops whose inputs did not change ({@code --cache DIR}): each op's results under a key
 * made of everything they depend on, so that a re-run replays them without a worker. The key of an
 * op covers the SHA-256 of each library and of every non-system library it loads, the op's spec
 * entry and the spec's global settings, the harness version, and the run's seed, tries, devices,
 * checks, timeout, severity, baseline and required families. What the worker found in the libraries
 * (their ops and schemas) is kept under the libraries' part of the key, so a run whose ops are all
 * cached starts no worker.
 *
 * <p>Entries are written to a temporary file and moved into place, so concurrent runs sharing a
 * directory see a whole entry or none; an entry that cannot be read is ignored with one line and
 * the op runs.
 */
public final class ResultCache {
  /** The format of an entry; part of every key, so a new format never reads an old entry. */
  private static final String FORMAT = "opcheck4j-cache-1";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new YAMLMapper();

  private final Path dir;
  private final String runKey;
  private final List<JsonNode> specs;
  private final Consumer<String> notes;

  /** An op's cached results, as {@link Wire} writes them. */
  record Entry(String key, List<CheckResult> results) {}

  /** The worker's view of the libraries, as {@link Wire} writes it. */
  record Libraries(String key, WorkerInfo info) {}

  private ResultCache(Path dir, String runKey, List<JsonNode> specs, Consumer<String> notes) {
    this.dir = dir;
    this.runKey = runKey;
    this.specs = specs;
    this.notes = notes;
  }

  /**
   * The cache in {@code dir} for {@code request}, whose targets resolve to {@code targets} (absolute
   * spec and library paths); {@code notes} receives the one-line notes (an entry ignored).
   */
  public static ResultCache open(Path dir, RunRequest request, List<RunRequest.Target> targets, List<Check> checks,
      Consumer<String> notes) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("the cache directory " + dir + " cannot be made: " + e.getMessage(), e);
    }
    ResultCache hashes = new ResultCache(dir, "", List.of(), notes);
    StringBuilder key = new StringBuilder(FORMAT).append('\n').append(Versions.current().tool()).append('\n');
    List<JsonNode> specs = new ArrayList<>();
    for (RunRequest.Target t : targets) {
      key.append("library ").append(hashes.fileHash(t.library())).append('\n');
      for (Path dep : dependencies(t.library())) {
        key.append("loads ").append(dep).append(' ').append(hashes.fileHash(dep)).append('\n');
      }
      JsonNode spec = t.spec() == null ? null : readSpec(t.spec());
      specs.add(spec);
      if (spec instanceof ObjectNode o) {
        ObjectNode settings = o.deepCopy();
        settings.remove("ops");
        settings.remove("library");
        key.append("settings ").append(settings).append('\n');
      }
    }
    key.append("seed ").append(request.seed()).append("\ntries ").append(request.tries())
        .append("\ndevices ").append(request.devices()).append("\nchecks ").append(checks.stream().map(Check::id).toList())
        .append("\ntimeout ").append(request.timeout()).append("\nseverity ").append(request.severity())
        .append("\nrequire ").append(request.require())
        .append("\nbaseline ").append(request.baseline() == null ? "-" : hashes.baselineHash(request.baseline()));
    return new ResultCache(dir, sha256(key.toString()), specs, notes);
  }

  /** The worker's view of the libraries, if a run with the same libraries stored it. */
  public Optional<WorkerInfo> libraries() {
    return read("libraries", runKey, Libraries.class).filter(l -> l.key().equals(runKey)).map(Libraries::info);
  }

  public void storeLibraries(WorkerInfo info) {
    write("libraries", runKey, Wire.write(new Libraries(runKey, info)));
  }

  /**
   * The key of target {@code target}'s library-wide checks ({@code entry} null) or of one of its entries:
   * an op may have several, each its own contract with results of its own, so the entry is named too.
   */
  public String key(int target, OpSpec entry) {
    String op = entry == null ? null : entry.op();
    JsonNode spec = specs.get(target);
    StringBuilder k = new StringBuilder(runKey).append("\ntarget ").append(target).append("\nop ").append(op)
        .append("\nentry ").append(entry == null ? "-" : entry.ref());
    if (op != null && spec != null && spec.get("ops") != null) {
      for (JsonNode written : spec.get("ops")) {
        if (op.equals(written.path("op").asText())) {
          k.append('\n').append(written);
        }
      }
    }
    return sha256(k.toString());
  }

  /** The results stored under {@code key}, if any. */
  public Optional<List<CheckResult>> results(String key) {
    return read("ops", key, Entry.class).filter(e -> e.key().equals(key)).map(Entry::results);
  }

  /**
   * Stores {@code results} under {@code key}, unless one of them is Errored (a harness failure, or a
   * deadline a busy machine can miss, is not a fact about the op to replay).
   */
  public void store(String key, List<CheckResult> results) {
    if (results.stream().anyMatch(r -> r.outcome() == Outcome.ERRORED)) {
      return;
    }
    write("ops", key, Wire.write(new Entry(key, results)));
  }

  private <T> Optional<T> read(String kind, String key, Class<T> type) {
    Path file = dir.resolve(kind).resolve(key.substring(0, 2)).resolve(key + ".json");
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      notes.accept("cache: ignoring " + file + ": " + e.getMessage());
      return Optional.empty();
    }
    try {
      return Optional.of(Wire.read(text.strip(), type));
    } catch (RuntimeException e) {
      notes.accept("cache: ignoring corrupt entry " + file + " (" + e.getClass().getSimpleName() + ")");
      return Optional.empty();
    }
  }

  private void write(String kind, String key, String text) {
    Path file = dir.resolve(kind).resolve(key.substring(0, 2)).resolve(key + ".json");
    try {
      Files.createDirectories(file.getParent());
      Path tmp = Files.createTempFile(file.getParent(), key, ".tmp");
      Files.writeString(tmp, text + "\n", StandardCharsets.UTF_8);
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
  private String baselineHash(Path baseline) {
    String values = "-";
    try {
      String side = dev.opcheck4j.torch.SchemaBaseline.read(baseline).values();
      if (side != null) {
        Path file = baseline.toAbsolutePath().resolveSibling(side);
        values = Files.exists(file) ? fileHash(file) : "missing " + side;
      }
    } catch (IOException | RuntimeException e) {
      values = "unreadable"; // the run reports the baseline's own error; its results are not worth caching apart
    }
    return fileHash(baseline) + " values " + values;
  }

  /**
   * SHA-256 of a file, remembered under its path, size, modification time and inode so that a large
   * library (libtorch) is read once, not on every run.
   */
  private String fileHash(Path file) {
    Path abs = file.toAbsolutePath().normalize();
    try {
      Path memo = memo(dir, abs);
      if (Files.exists(memo)) {
        String h = Files.readString(memo).strip();
        if (h.matches("[0-9a-f]{64}")) {
          return h;
        }
      }
      String h = Files.size(abs) >= LARGE ? sha256sum(abs) : null;
      if (h == null) {
        h = RunBlock.sha256(abs);
      }
      if (h == null) {
        return "unreadable " + abs;
      }
      Files.createDirectories(memo.getParent());
      Path tmp = Files.createTempFile(memo.getParent(), memo.getFileName().toString(), ".tmp");
      Files.writeString(tmp, h);
      Files.move(tmp, memo, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return h;
    } catch (IOException e) {
      return "unreadable " + abs;
    }
  }

  /** Where the hash of {@code abs} as it is now (its path, size, modification time and inode) is remembered. */
  private static Path memo(Path dir, Path abs) throws IOException {
    BasicFileAttributes a = Files.readAttributes(abs, BasicFileAttributes.class);
    String stamp = abs + "\n" + a.size() + "\n" + a.lastModifiedTime().toMillis() + "\n" + a.fileKey();
    return dir.resolve("files").resolve(sha256(stamp) + ".sha256");
  }

  /**
   * Whether the cache in {@code dir} remembers the hash of every library of {@code targets} and of
   * every library they load, as they are now: then opening it reads none of them. When it does not
   * (a first run, a new libtorch), opening it reads libtorch whole, which takes seconds.
   */
  public static boolean remembers(Path dir, List<RunRequest.Target> targets) {
    try {
      for (RunRequest.Target t : targets) {
        List<Path> files = new ArrayList<>(dependencies(t.library()));
        files.add(t.library());
        for (Path f : files) {
          if (!Files.exists(memo(dir, f.toAbsolutePath().normalize()))) {
            return false;
          }
        }
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Files this large are hashed by coreutils' sha256sum when there is one. */
  private static final long LARGE = 16L << 20;

  /**
   * The SHA-256 of {@code file} from {@code sha256sum}, or null without one. This JVM runs on the
   * client compiler, whose SHA-256 has no CPU instructions of its own: libtorch (330 MB) took 2.6 s
   * there and takes 1.2 s in sha256sum.
   */
  private static String sha256sum(Path file) {
    try {
      Process p = new ProcessBuilder("sha256sum", "-b", "--", file.toString())
          .redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      return p.exitValue() == 0 && out.length() >= 64 && out.substring(0, 64).matches("[0-9a-f]{64}")
          ? out.substring(0, 64) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The libraries {@code library} loads that are not the system's (not under /lib or /usr/lib), from ldd. */
  static List<Path> dependencies(Path library) {
    Path abs = library.toAbsolutePath().normalize();
    String stamp;
    try {
      stamp = abs + "\n" + Files.size(abs) + "\n" + Files.getLastModifiedTime(abs).toMillis();
    } catch (IOException e) {
      return lddDependencies(abs);
    }
    return DEPENDENCIES.computeIfAbsent(stamp, k -> lddDependencies(abs));
  }

  /**
   * ldd's answer per library as it is (path, size, modification time), asked once per process: a
   * run asks twice ({@link #remembers}, then {@link #open}).
   */
  private static final java.util.Map<String, List<Path>> DEPENDENCIES = new java.util.concurrent.ConcurrentHashMap<>();

  private static List<Path> lddDependencies(Path library) {
    List<Path> out = new ArrayList<>();
    try {
      Process p = new ProcessBuilder("ldd", library.toString()).redirectErrorStream(true).start();
      String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
      for (String line : text.split("\n")) {
        int arrow = line.indexOf("=> /");
        if (arrow < 0) {
          continue;
        }
        String path = line.substring(arrow + 3).replaceAll("\\s+\\(0x[0-9a-f]+\\)\\s*$", "").strip();
        if (!path.startsWith("/lib") && !path.startsWith("/usr/lib")) {
          out.add(Path.of(path));
        }
      }
    } catch (IOException e) {
      // without ldd the library's own hash is the key; its dependencies go unchecked
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return out.stream().sorted().toList();
  }

  private static JsonNode readSpec(Path spec) {
    String name = spec.getFileName().toString();
    try {
      return (name.endsWith(".yaml") || name.endsWith(".yml") ? YAML : JSON).readTree(spec.toFile());
    } catch (IOException e) {
      // the run has read it already; a file that changed under it keys by its whole text instead
      return JSON.getNodeFactory().textNode(RunBlock.sha256(spec));
    }
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
