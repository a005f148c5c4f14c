package dev.opcheck4j.run.supervisor;

import dev.opcheck4j.run.link.UnitMarks;
import dev.opcheck4j.torch.Instrumentation;
import dev.opcheck4j.torch.Instrumentation.Sanitizer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How the workers of a run whose libraries were built with sanitizers are started, never the parent: each
 * sanitizer's runtime preloaded where the {@code java} binary cannot load it late (ASan's and TSan's must
 * come first; with ASan, libstdc++ too, which {@code java} does not link and whose {@code __cxa_throw} ASan
 * intercepts), and options that keep the JVM and libtorch quiet: the JVM handles its own SIGSEGV (its null
 * checks and safepoints), leaks are not reported (the JVM never frees what it keeps), TSan is told to ignore
 * the JVM's libraries ({@link #TSAN_SUPPRESSIONS}). Each frame of a report names its module, so that the
 * first frame in the op library can be found. UBSan and TSan go on after a report, and report every
 * occurrence (TSan: {@code suppress_equal_stacks=0}; UBSan through the worker): the parent reads each
 * exchange's output unit by unit ({@link UnitMarks}) and keeps the worker.
 *
 * <p>libtorch runs {@code at::parallel_for} (and the stable ABI's {@code torch::stable::parallel_for}) on OpenMP,
 * on its own libgomp, whose barriers TSan does not see: every parallel region then looks like a race between the
 * thread that wrote the data before it and the ones that read it in it (measured: the good twin of
 * {@code sanitizer_ops::chunks_sum_shared} was reported, and a later unit's stack too). Where LLVM's OpenMP runtime
 * and its TSan tool Archer are installed (Debian: {@code libomp-dev}), a TSan worker preloads LLVM's libomp, which
 * implements libgomp's ABI, and loads Archer ({@code OMP_TOOL_LIBRARIES}), which tells TSan each region's fork,
 * join and barriers ({@link OpenMpTool}); without them, its OpenMP runs one thread ({@code OMP_NUM_THREADS=1}), so
 * a parallel region reports nothing, true or false.
 *
 * @param sanitizers the sanitizers the run's libraries were built with, each with its runtime's soname
 * @param libraries the file names of the libraries built with one
 * @param gcov whether a library records gcov's coverage
 */
public record SanitizedWorkers(java.util.Map<Sanitizer, String> sanitizers, List<String> libraries, boolean gcov) {
  /** The TSan suppressions shipped with the harness, for the JVM's own libraries. */
  public static final String TSAN_SUPPRESSIONS = "tsan-jvm.supp";
  /** How a frame of a report is written: ASan's own format, then the module in angle brackets. */
  static final String FRAME_FORMAT = "'    #%n %p %F %L <%m>'";

  public SanitizedWorkers {
    sanitizers = Map.copyOf(sanitizers);
    libraries = List.copyOf(libraries);
  }

  /** A run of libraries built with none. */
  public static final SanitizedWorkers NONE = new SanitizedWorkers(Map.of(), List.of(), false);

  /** How the workers of a run loading {@code libraries} are started. */
  public static SanitizedWorkers of(List<Path> libraries) {
    Map<Sanitizer, String> found = new java.util.EnumMap<>(Sanitizer.class);
    List<String> named = new ArrayList<>();
    boolean gcov = false;
    for (Instrumentation i : Instrumentation.of(libraries)) {
      found.putAll(i.sanitizers());
      if (!i.sanitizers().isEmpty()) {
        named.add(i.library().getFileName().toString());
      }
      gcov |= i.gcov();
    }
    return new SanitizedWorkers(found, named, gcov);
  }

  /** Whether a worker's units are marked in its output and read after each exchange: a sanitizer that goes on runs. */
  public boolean readsUnits() {
    return sanitizers.keySet().stream().anyMatch(s -> !s.halts());
  }

  /** Whether any sanitizer runs. */
  public boolean any() {
    return !sanitizers.isEmpty();
  }

  /** The libraries a worker preloads, in order: each sanitizer runtime that must come first, and what it needs. */
  public List<String> preload() {
    Set<String> out = new LinkedHashSet<>();
    if (sanitizers.containsKey(Sanitizer.ADDRESS)) {
      out.add(sanitizers.get(Sanitizer.ADDRESS));
      out.add("libstdc++.so.6");
    }
    if (sanitizers.containsKey(Sanitizer.THREAD)) {
      out.add(sanitizers.get(Sanitizer.THREAD));
      OpenMpTool.installed().ifPresent(t -> out.add(t.runtime().toString()));
    }
    return List.copyOf(out);
  }

  /** How OpenMP's parallel regions run under TSan: on LLVM's runtime with Archer, or on one thread; empty without TSan. */
  public java.util.Optional<String> openMp() {
    if (!sanitizers.containsKey(Sanitizer.THREAD)) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(OpenMpTool.installed().map(t -> "parallel regions on LLVM's OpenMP (" + t.runtime()
        + ") with Archer, so TSan sees their synchronization").orElse("no LLVM OpenMP with Archer here (Debian:"
        + " libomp-dev): libtorch's parallel regions run on one thread (OMP_NUM_THREADS=1), so a race inside"
        + " parallel_for is not looked for"));
  }

  /**
   * The options each sanitizer's runtime reads, by variable ({@code ASAN_OPTIONS}, ...), with a TSan
   * suppressions file at {@code suppressions} (null: none). The caller's own options come after ours: the runtime
   * takes the last value of an option, so they win.
   */
  public Map<String, String> options(Path suppressions, Map<String, String> inherited) {
    Map<String, String> env = new LinkedHashMap<>();
    String frames = "stack_trace_format=" + FRAME_FORMAT;
    if (sanitizers.containsKey(Sanitizer.ADDRESS)) {
      env.put("ASAN_OPTIONS", "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:allow_user_segv_handler=1"
          + ":detect_leaks=0:halt_on_error=1:" + frames);
    }
    if (sanitizers.containsKey(Sanitizer.UNDEFINED) || sanitizers.containsKey(Sanitizer.ADDRESS)) {
      env.put("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=0:report_error_type=1:" + frames);
    }
    if (sanitizers.containsKey(Sanitizer.THREAD)) {
      env.put("TSAN_OPTIONS", (suppressions == null ? "" : "suppressions=" + suppressions + ":")
          + "halt_on_error=0:suppress_equal_stacks=0"
          + ":suppress_equal_addresses=0:report_signal_unsafe=0:ignore_noninstrumented_modules=1:die_after_fork=0"
          + ":handle_segv=0:handle_sigbus=0:handle_sigfpe=0:history_size=4");
    }
    env.replaceAll((k, v) -> inherited.containsKey(k) ? v + ":" + inherited.get(k) : v);
    if (sanitizers.containsKey(Sanitizer.THREAD)) {
      java.util.Optional<OpenMpTool> tool = OpenMpTool.installed();
      if (tool.isPresent()) {
        env.put("OMP_TOOL_LIBRARIES", tool.get().archer().toString());
      } else if (!inherited.containsKey("OMP_NUM_THREADS")) {
        env.put("OMP_NUM_THREADS", "1");
      }
    }
    List<String> preload = new ArrayList<>(preload());
    if (!preload.isEmpty()) {
      String theirs = inherited.get("LD_PRELOAD");
      env.put("LD_PRELOAD", String.join(" ", preload) + (theirs == null || theirs.isBlank() ? "" : " " + theirs));
    }
    return env;
  }

  /** The options of the worker JVM: its unit marks, where the parent reads them. */
  public List<String> jvmOptions() {
    return readsUnits() || any() ? List.of("-D" + UnitMarks.PROPERTY + "=true") : List.of();
  }

  /** Sets a worker's environment, writing the TSan suppressions into {@code dir} first where TSan runs. */
  void configure(Map<String, String> environment, Path dir) {
    if (!any()) {
      return;
    }
    Path suppressions = dir.resolve(TSAN_SUPPRESSIONS);
    if (sanitizers.containsKey(Sanitizer.THREAD) && !Files.isRegularFile(suppressions)) {
      try (InputStream in = SanitizedWorkers.class.getResourceAsStream(TSAN_SUPPRESSIONS)) {
        Path tmp = Files.createTempFile(dir, "tsan", ".supp");
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
        Files.move(tmp, suppressions, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write the TSan suppressions into " + dir, e);
      }
    }
    environment.putAll(options(suppressions.toAbsolutePath(), Map.copyOf(environment)));
  }

  /**
   * What a run's header says of them: which sanitizers are active in which libraries and what each worker
   * preloads, and how OpenMP runs under TSan; nothing for a run of plain libraries.
   */
  public List<String> header() {
    List<String> lines = new ArrayList<>();
    if (any()) {
      lines.add("sanitizers: " + String.join(", ", tools()) + " (" + String.join(", ", libraries) + "); workers only"
          + (preload().isEmpty() ? "" : ", each preloading " + String.join(" ", preload()))
          + (readsUnits() ? "; each unit's output read for reports" : ""));
      openMp().ifPresent(o -> lines.add("sanitizers: " + o));
    }
    return lines;
  }

  /** The sanitizers, by their tools' names, in a fixed order. */
  public List<String> tools() {
    return java.util.Arrays.stream(Sanitizer.values()).filter(sanitizers::containsKey).map(Sanitizer::tool).toList();
  }
}
