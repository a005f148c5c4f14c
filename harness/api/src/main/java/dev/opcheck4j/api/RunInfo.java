package dev.opcheck4j.api;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How a run was made: versions, settings, devices, inputs and timing — the {@code run} block of
 * every report. Absent values are null (never a placeholder string).
 *
 * @param toolVersion opcheck4j's version
 * @param torchVersion libtorch version the ops ran against
 * @param presetsVersion JavaCPP presets version
 * @param seed seed of everything drawn at random, or null when nothing was
 * @param tries generated inputs per op and device, or null when not known
 * @param jobs worker processes (1 when checks ran in one process)
 * @param devices every device considered, with why it did not run when it did not
 * @param checksRun ids of the checks that ran, in registry order
 * @param inputs the spec files and libraries checked
 * @param startedAt when the run started
 * @param durationMs wall time of the whole run
 * @param commandLine the command line that made the run, or null when it came from JUnit
 * @param configuration JUnit configuration parameters when the run came from JUnit, else null
 * @param completion whether the run checked all it was asked to (interrupted, or merged from shards
 *     that did not finish); never null
 * @param cached the ops (and, for library-wide checks, library file names) whose results were
 *     replayed from a result cache ({@code --cache}) instead of run, in plan order; empty when none
 */
public record RunInfo(
    String toolVersion,
    String torchVersion,
    String presetsVersion,
    Long seed,
    Integer tries,
    int jobs,
    List<DeviceInfo> devices,
    List<String> checksRun,
    List<Input> inputs,
    Instant startedAt,
    long durationMs,
    String commandLine,
    Map<String, String> configuration,
    Completion completion,
    List<String> cached) {

  public RunInfo {
    cached = cached == null ? List.of() : List.copyOf(cached);
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(completion, "completion");
    devices = List.copyOf(devices);
    checksRun = List.copyOf(checksRun);
    inputs = List.copyOf(inputs);
    configuration = configuration == null ? null : Map.copyOf(configuration);
  }

  /** A run none of whose results came from a cache. */
  public RunInfo(String toolVersion, String torchVersion, String presetsVersion, Long seed, Integer tries, int jobs,
      List<DeviceInfo> devices, List<String> checksRun, List<Input> inputs, Instant startedAt, long durationMs,
      String commandLine, Map<String, String> configuration, Completion completion) {
    this(toolVersion, torchVersion, presetsVersion, seed, tries, jobs, devices, checksRun, inputs, startedAt,
        durationMs, commandLine, configuration, completion, List.of());
  }

  /** A run that checked all it was asked to. */
  public RunInfo(String toolVersion, String torchVersion, String presetsVersion, Long seed, Integer tries, int jobs,
      List<DeviceInfo> devices, List<String> checksRun, List<Input> inputs, Instant startedAt, long durationMs,
      String commandLine, Map<String, String> configuration) {
    this(toolVersion, torchVersion, presetsVersion, seed, tries, jobs, devices, checksRun, inputs, startedAt,
        durationMs, commandLine, configuration, Completion.COMPLETE);
  }

  /** Only the versions and timing (what a v1 report held). */
  public static RunInfo minimal(String torchVersion, String presetsVersion, Instant startedAt, long durationMs) {
    return new RunInfo(null, torchVersion, presetsVersion, null, null, 1, List.of(), List.of(), List.of(),
        startedAt, durationMs, null, null);
  }

  /** The same run with its duration known. */
  public RunInfo withDuration(long ms) {
    return new RunInfo(toolVersion, torchVersion, presetsVersion, seed, tries, jobs, devices, checksRun, inputs,
        startedAt, ms, commandLine, configuration, completion);
  }

  /** The same run, started by {@code commandLine} or by JUnit with {@code configuration}. */
  public RunInfo withInvocation(String commandLine, Map<String, String> configuration) {
    return new RunInfo(toolVersion, torchVersion, presetsVersion, seed, tries, jobs, devices, checksRun, inputs,
        startedAt, durationMs, commandLine, configuration, completion, cached);
  }

  /** The same run with what it did not finish. */
  public RunInfo withCompletion(Completion completion) {
    return new RunInfo(toolVersion, torchVersion, presetsVersion, seed, tries, jobs, devices, checksRun, inputs,
        startedAt, durationMs, commandLine, configuration, completion, cached);
  }

  /** The same run with {@code ops} replayed from a result cache. */
  public RunInfo withCached(List<String> ops) {
    return new RunInfo(toolVersion, torchVersion, presetsVersion, seed, tries, jobs, devices, checksRun, inputs,
        startedAt, durationMs, commandLine, configuration, completion, ops);
  }

  /**
   * The run block of this run followed by {@code next}, made with the same settings (as the JUnit
   * engine runs one spec after the other): the inputs and checks run of both, this run's start.
   */
  public RunInfo followedBy(RunInfo next) {
    List<String> checks = new java.util.ArrayList<>(checksRun);
    next.checksRun.stream().filter(c -> !checks.contains(c)).forEach(checks::add);
    List<Input> all = new java.util.ArrayList<>(inputs);
    all.addAll(next.inputs);
    return new RunInfo(toolVersion, torchVersion, presetsVersion, seed, tries, jobs, devices, checks, all,
        startedAt, durationMs, commandLine, configuration, completion.and(next.completion),
        java.util.stream.Stream.concat(cached.stream(), next.cached.stream()).toList());
  }

  /** The devices that ran. */
  public List<String> devicesRun() {
    return devices.stream().filter(DeviceInfo::runs).map(DeviceInfo::name).toList();
  }

  /**
   * A device considered for the run.
   *
   * @param name {@code cpu}, {@code meta}, {@code cuda}
   * @param runs whether checks ran on it
   * @param skipReason why it did not run, or null when it ran
   */
  public record DeviceInfo(String name, boolean runs, String skipReason) {
    public DeviceInfo {
      Objects.requireNonNull(name, "name");
    }
  }

  /**
   * One library checked, with the spec that named it.
   *
   * @param spec the spec file, or null when the library was checked without one
   * @param library path of the shared library
   * @param sha256 hex SHA-256 of the library file, or null when it could not be read
   */
  public record Input(String spec, String library, String sha256) {
    public Input {
      Objects.requireNonNull(library, "library");
    }
  }

  /**
   * Whether a run checked all it was asked to: a report of a run that was interrupted, or merged from
   * shards that did not finish, holds only part of the results and says so in every format.
   *
   * @param interrupted the signal that stopped the run ({@code SIGINT}, {@code SIGTERM}), or null when none did
   * @param incomplete the merged shards that did not finish, each with the ops it is missing; empty when
   *     every shard finished
   */
  public record Completion(String interrupted, List<Incomplete> incomplete) {
    /** A run that checked all it was asked to. */
    public static final Completion COMPLETE = new Completion(null, List.of());

    public Completion {
      incomplete = List.copyOf(incomplete);
    }

    /** A run stopped by {@code signal}. */
    public static Completion interruptedBy(String signal) {
      return new Completion(Objects.requireNonNull(signal, "signal"), List.of());
    }

    /** Whether the run checked all it was asked to. */
    public boolean complete() {
      return interrupted == null && incomplete.isEmpty();
    }

    /** Both runs' gaps: the first signal, the incomplete shards of both. */
    public Completion and(Completion other) {
      List<Incomplete> all = new java.util.ArrayList<>(incomplete);
      all.addAll(other.incomplete);
      return new Completion(interrupted != null ? interrupted : other.interrupted, all);
    }

    /**
     * The one line every format shows above the results ({@code interrupted by SIGINT: the results
     * are those gathered before it}), or null when the run is complete.
     */
    public String mark() {
      List<String> parts = new java.util.ArrayList<>();
      if (interrupted != null) {
        parts.add("interrupted by " + interrupted + ": the results are those gathered before it");
      }
      if (!incomplete.isEmpty()) {
        long missing = incomplete.stream().mapToLong(i -> i.missingOps().size()).sum();
        parts.add("incomplete: " + incomplete.size() + (incomplete.size() == 1 ? " shard" : " shards")
            + " did not finish (" + missing + (missing == 1 ? " op" : " ops") + " missing: "
            + String.join(", ", incomplete.stream().flatMap(i -> i.missingOps().stream()).toList()) + ")");
      }
      return parts.isEmpty() ? null : String.join("; ", parts);
    }
  }

  /**
   * A shard (a run's report dir) that did not finish.
   *
   * @param shard the shard's report dir
   * @param missingOps the ops it was to check and did not finish, in plan order
   */
  public record Incomplete(String shard, List<String> missingOps) {
    public Incomplete {
      Objects.requireNonNull(shard, "shard");
      missingOps = List.copyOf(missingOps);
    }
  }
}
