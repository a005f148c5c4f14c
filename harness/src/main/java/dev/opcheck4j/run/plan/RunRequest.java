package dev.opcheck4j.run.plan;


import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.run.shard.OpTimings;
import dev.opcheck4j.run.shard.ShardPacking;
import dev.opcheck4j.spec.SpecReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What one run checks and how: the plain input of {@code Launcher.execute}. Build it with
 * {@link #builder()}; every list may be empty (meaning "all" for ops, checks and devices). What is not
 * set takes its default from {@link RunOptions}.
 *
 * @param targets what to check: spec files and libraries, in order
 * @param ops op names to check ({@code ns::name}); empty: all
 * @param checks check ids or families; empty: every registered check
 * @param devices devices under test; empty: every available one, plus cuda reported Skipped without a GPU
 * @param seed seed for everything drawn at random
 * @param tries generated inputs per op and device (0: the examples only)
 * @param jobs worker processes running at once (at least 1)
 * @param timeout deadline of one unit of work (a spec may give an op its own)
 * @param shard the part of the ops this run checks
 * @param reportDir where {@code opcheck-results.jsonl}, worker logs and JVM error files go; null: a
 *     temporary directory, deleted when the run ends
 * @param isolation where kernels run; {@link Isolation#WORKERS} unless measuring
 * @param severity what a finding becomes: warnings stay warnings unless {@code --warnings-as-errors}, notes
 *     notes unless {@code --strict}
 * @param baseline a schema baseline file to compare the libraries against ({@code --baseline}), or null
 * @param require check families that must run on every op ({@code --require}); empty: none
 * @param cache the result cache's directory ({@code --cache}), or null for none
 * @param expectedFailures the failures expected of this run ({@code --expected-failures}); never null
 * @param tags the tags this run answers to in the expected-failures file ({@code --tag}); empty: none
 * @param repro where each failure is written as a PyTorch script ({@code --repro}), or null for nowhere
 * @param runtimes the libtorch versions to check on ({@code --runtime}), oldest first; empty: this JVM's own
 *     runtime alone ({@link Runtimes#defaults})
 * @param packages AOTInductor packages the libraries must keep serving ({@code --package}) beside the specs' own
 * @param minLineCoverage the least share of its kernel's lines, in percent, an op of a library built with coverage
 *     must run ({@code --min-line-coverage}), or null for none (a spec may set its own)
 * @param allTries whether every one of the {@code tries} is made ({@code --all-tries}), not only while they find
 *     new ground (a spec may ask it for its own ops)
 */
public record RunRequest(
    List<RunTarget> targets,
    List<String> ops,
    List<String> checks,
    List<Device> devices,
    long seed,
    int tries,
    int jobs,
    Duration timeout,
    Shard shard,
    Path reportDir,
    Isolation isolation,
    SeverityPolicy severity,
    Path baseline,
    List<String> require,
    Path cache,
    ExpectedFailures expectedFailures,
    List<String> tags,
    Path repro,
    List<String> runtimes, List<Path> packages,
    Double minLineCoverage,
    boolean allTries) {

  /** {@link RunOptions#SEED}'s default. */
  public static final long DEFAULT_SEED = RunOptions.SEED.defaultValue();
  /** {@link RunOptions#TRIES}'s default. */
  public static final int DEFAULT_TRIES = RunOptions.TRIES.defaultValue();
  /** {@link RunOptions#TIMEOUT}'s default. */
  public static final Duration DEFAULT_TIMEOUT = RunOptions.TIMEOUT.defaultValue();

  public RunRequest {
    targets = List.copyOf(targets);
    ops = List.copyOf(ops);
    checks = List.copyOf(checks);
    require = List.copyOf(require);
    tags = List.copyOf(tags);
    runtimes = List.copyOf(runtimes);
    packages = List.copyOf(packages);
    Objects.requireNonNull(expectedFailures, "expectedFailures");
    devices = List.copyOf(devices);
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(shard, "shard");
    Objects.requireNonNull(isolation, "isolation");
    Objects.requireNonNull(severity, "severity");
    if (jobs < 1) {
      throw new IllegalArgumentException("jobs must be at least 1, got " + jobs);
    }
    if (tries < 0) {
      throw new IllegalArgumentException("tries must be at least 0, got " + tries);
    }
  }

  /**
   * The one runtime of a request that names at most one: the one it names, or this JVM's.
   *
   * @throws IllegalStateException when it names several (each is run on its own: run/RuntimeRuns)
   */
  public LibtorchRuntime runtime() {
    if (runtimes.size() > 1) {
      throw new IllegalStateException("a request of " + runtimes.size() + " runtimes runs each on its own");
    }
    return runtimes.isEmpty() ? Runtimes.own() : Runtimes.find(runtimes.get(0));
  }

  /** Whether findings that are warnings are failures (the run's own policy; a spec may add its own). */
  public boolean warningsAsErrors() {
    return severity.warningsAsErrors();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding every value of this request, to derive another from it. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.targets.addAll(targets);
    b.ops.addAll(ops);
    b.checks.addAll(checks);
    b.devices.addAll(devices);
    b.require.addAll(require);
    b.seed = seed;
    b.tries = tries;
    b.jobs = jobs;
    b.timeout = timeout;
    b.shard = shard;
    b.reportDir = reportDir;
    b.isolation = isolation;
    b.severity = severity;
    b.baseline = baseline;
    b.cache = cache;
    b.expectedFailures = expectedFailures;
    b.tags.addAll(tags);
    b.repro = repro;
    b.minLineCoverage = minLineCoverage;
    b.allTries = allTries;
    b.runtimes.addAll(runtimes);
    b.packages.addAll(packages);
    return b;
  }

  /** Builds a request; unset values take the defaults of the command line. */
  public static final class Builder {
    private final List<RunTarget> targets = new ArrayList<>();
    private final List<String> ops = new ArrayList<>();
    private final List<String> checks = new ArrayList<>();
    private final List<Device> devices = new ArrayList<>();
    private long seed = RunOptions.SEED.defaultValue();
    private int tries = RunOptions.TRIES.defaultValue();
    private int jobs = RunOptions.JOBS.defaultValue();
    private Duration timeout = RunOptions.TIMEOUT.defaultValue();
    private Shard shard = RunOptions.SHARD.defaultValue();
    private Path reportDir;
    private Isolation isolation = Isolation.WORKERS;
    private SeverityPolicy severity = SeverityPolicy.DEFAULT;
    private Path baseline;
    private final List<String> require = new ArrayList<>();
    private Path cache;
    private ExpectedFailures expectedFailures = ExpectedFailures.NONE;
    private final List<String> tags = new ArrayList<>();
    private Path repro;
    private Double minLineCoverage;
    private boolean allTries;
    private final List<String> runtimes = new ArrayList<>();
    private final List<Path> packages = new ArrayList<>();

    private Builder() {}

    /** The ops, examples and settings of a spec file, on the library it names. */
    public Builder spec(Path file) {
      targets.add(new RunTarget(file, null));
      return this;
    }

    /** The ops, examples and settings of a spec file, on {@code library} instead of the one it names. */
    public Builder spec(Path file, Path library) {
      targets.add(new RunTarget(file, library));
      return this;
    }

    /** The ops, examples and settings of a spec already read (its path: the file it was read from). */
    public Builder spec(SpecReader.Parsed read) {
      targets.add(new RunTarget(read.file().file(), null, read));
      return this;
    }

    /** Every op {@code file} registers, with no spec. */
    public Builder library(Path file) {
      targets.add(new RunTarget(null, file));
      return this;
    }

    /** Replaces the targets with these. */
    public Builder targets(List<RunTarget> list) {
      targets.clear();
      targets.addAll(list);
      return this;
    }

    public Builder ops(List<String> names) {
      ops.addAll(names);
      return this;
    }

    public Builder checks(List<String> idsOrFamilies) {
      checks.addAll(idsOrFamilies);
      return this;
    }

    public Builder devices(List<Device> list) {
      devices.addAll(list);
      return this;
    }

    /** Replaces the ops, checks and devices (empty: all) with these. */
    public Builder select(List<String> opNames, List<String> idsOrFamilies, List<Device> list) {
      ops.clear();
      checks.clear();
      devices.clear();
      return ops(opNames).checks(idsOrFamilies).devices(list);
    }

    public Builder seed(long value) {
      seed = value;
      return this;
    }

    public Builder tries(int value) {
      tries = value;
      return this;
    }

    public Builder jobs(int value) {
      jobs = value;
      return this;
    }

    public Builder timeout(Duration value) {
      timeout = value;
      return this;
    }

    public Builder shard(Shard value) {
      shard = value;
      return this;
    }

    /** Null: a temporary directory for the run's files. */
    public Builder reportDir(Path dir) {
      reportDir = dir;
      return this;
    }

    public Builder isolation(Isolation value) {
      isolation = value;
      return this;
    }

    /** Findings that are warnings are failures ({@code --warnings-as-errors}); whether the run is strict is kept. */
    public Builder warningsAsErrors(boolean value) {
      return severity(new SeverityPolicy(value, severity.strict()));
    }

    /** What findings become (default: warnings stay warnings, notes notes). */
    public Builder severity(SeverityPolicy value) {
      severity = Objects.requireNonNull(value, "severity");
      return this;
    }

    /** Adds schema.compatible against this baseline file (docs/baseline.md). */
    public Builder baseline(Path file) {
      baseline = file;
      return this;
    }

    /** Check families that must run on every op ({@code --require}). */
    public Builder require(List<String> families) {
      require.addAll(families);
      return this;
    }

    /** Null: no result cache (the default, and {@code --no-cache}). */
    public Builder cache(Path dir) {
      cache = dir;
      return this;
    }

    /** The failures expected of the run ({@code --expected-failures}); {@link ExpectedFailures#NONE} by default. */
    public Builder expectedFailures(ExpectedFailures file) {
      expectedFailures = Objects.requireNonNull(file, "file");
      return this;
    }

    /** Tags the run answers to in the expected-failures file ({@code --tag}). */
    public Builder tags(List<String> names) {
      tags.addAll(names);
      return this;
    }

    /** Null: no minimum (the default). */
    public Builder minLineCoverage(Double percent) {
      minLineCoverage = percent;
      return this;
    }

    /** Whether every try is made ({@code --all-tries}); default false: the tries are a ceiling. */
    public Builder allTries(boolean value) {
      allTries = value;
      return this;
    }

    /** Null: no repro scripts (the default). */
    public Builder repro(Path dir) {
      repro = dir;
      return this;
    }

    /** The libtorch runtimes to check on ({@code --runtime}), replacing any given before; empty: the default. */
    public Builder runtimes(List<String> versions) {
      runtimes.clear();
      runtimes.addAll(versions);
      return this;
    }

    /** AOTInductor packages the libraries must keep serving ({@code --package}), added to any given before. */
    public Builder packages(List<Path> files) {
      packages.addAll(files);
      return this;
    }

    public RunRequest build() {
      return new RunRequest(targets, ops, checks, devices, seed, tries, jobs, timeout, shard, reportDir,
          isolation, severity, baseline, require, cache, expectedFailures, tags, repro, runtimes, packages, minLineCoverage,
          allTries);
    }
  }
}
