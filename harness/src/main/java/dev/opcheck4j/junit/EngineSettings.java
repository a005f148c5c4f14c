package dev.opcheck4j.junit;

import dev.opcheck4j.run.plan.Shard;
import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.plan.RunOption;
import dev.opcheck4j.run.plan.RunOptions;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.plan.ShardChoice;
import dev.opcheck4j.run.shard.ShardPacking;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecFile;
import java.util.function.UnaryOperator;
import dev.opcheck4j.torch.Device;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.platform.engine.ConfigurationParameters;

/**
 * The engine's configuration parameters ({@code junit-platform.properties}, {@code -D} on the
 * command line, or the launcher's own), read once per run. Every value is printed once and
 * written into the reports, so a run says how it was configured.
 *
 * <p>What a run checks and how (ops, checks, devices, seed, tries, jobs, timeout, severity, report
 * directory, required families, cache) is one {@link RunRequest} without targets, read from the same
 * rows of {@link RunOptions} as the command line's: the engine adds each spec as a target when it runs it.
 *
 * @param specs extra spec files ({@code opcheck4j.specs}, comma-separated paths)
 * @param run the run's options, as a request with no targets; its report directory is where the
 *     report formats write ({@code opcheck4j.reportDir}, default {@code target/opcheck})
 * @param expectedFailures the expected-failures file, if any ({@code opcheck4j.expectedFailures}); the
 *     run's request holds what it says once discovery has read it
 * @param accept whether to rewrite that file so that the run would pass ({@code opcheck4j.accept})
 * @param docsBase where check doc pages are, for report links ({@code opcheck4j.docsUrl} as given, the
 *     page of {@code fake.metadata} being {@code <docsBase>fake.metadata.md}; null for the default,
 *     resolved by {@link dev.opcheck4j.api.DocsLocation})
 * @param allure whether to write Allure's results too ({@code opcheck4j.allure})
 * @param timings the timings file given ({@code opcheck4j.timings}); the run's shard holds what it says
 *     when the run is sharded ({@code opcheck4j.shard} or a CI engine's variables)
 */
public record EngineSettings(List<Path> specs, RunRequest run, Optional<Path> expectedFailures, boolean accept,
    String docsBase, boolean allure, Optional<Path> timings) {

  public static final String PREFIX = RunOptions.ENGINE_PREFIX;

  public EngineSettings {
    specs = List.copyOf(specs);
  }

  /**
   * Reads the parameters, each by its row of {@link RunOptions}.
   *
   * @throws IllegalArgumentException naming the parameter and what it accepts
   */
  public static EngineSettings from(ConfigurationParameters p) {
    return from(p, System::getenv);
  }

  /**
   * Reads the parameters, each by its row of {@link RunOptions}; the shard, when no
   * {@code opcheck4j.shard} is given, from the CI engine's variables in {@code env} ({@link ShardChoice}).
   *
   * @throws IllegalArgumentException naming the parameter and what it accepts
   */
  public static EngineSettings from(ConfigurationParameters p, UnaryOperator<String> env) {
    Function<String, Optional<String>> get = p::get;
    ShardChoice shard = ShardChoice.of(RunOptions.SHARD.read(get), RunOptions.TIMINGS.read(get), env);
    shard.acknowledge();
    List<String> checks = RunOptions.CHECKS.readAll(get);
    if (!checks.isEmpty()) {
      BuiltinChecks.select(checks); // an unknown id fails here, with the known ones
    }
    List<String> require = RunOptions.REQUIRE.readAll(get);
    BuiltinChecks.select(require);
    RunRequest run = RunRequest.builder()
        .ops(RunOptions.OPS.readAll(get))
        .checks(checks)
        .devices(RunOptions.DEVICES.readAll(get))
        .runtimes(RunOptions.RUNTIMES.read(get).orElse(List.of()))
        .seed(RunOptions.SEED.value(get))
        .tries(RunOptions.TRIES.value(get))
        .allTries(RunOptions.ALL_TRIES.value(get))
        .jobs(RunOptions.JOBS.value(get))
        .timeout(RunOptions.TIMEOUT.value(get))
        .severity(new SeverityPolicy(RunOptions.WARNINGS_AS_ERRORS.value(get), RunOptions.STRICT.value(get)))
        // a test run always writes its reports; the command line writes them only when asked
        .reportDir(RunOptions.REPORT_DIR.read(get).orElse(Path.of("target", "opcheck")))
        .require(require)
        .cache(RunOptions.CACHE.read(get).orElse(null))
        .repro(RunOptions.REPRO.read(get).orElse(null))
        .packages(RunOptions.PACKAGES.readAll(get))
        .minLineCoverage(RunOptions.MIN_LINE_COVERAGE.read(get).orElse(null))
        .tags(RunOptions.TAGS.readAll(get))
        .shard(shard.shard())
        .build();
    return new EngineSettings(RunOptions.SPECS.readAll(get), run, RunOptions.EXPECTED_FAILURES.read(get),
        RunOptions.ACCEPT_ENGINE.value(get), RunOptions.DOCS_URL.value(get), RunOptions.ALLURE.value(get),
        RunOptions.TIMINGS.read(get));
  }

  /** These settings with the run narrowed to {@code ops}, {@code checks} and {@code devices}. */
  public EngineSettings narrowed(List<String> ops, List<String> checks, List<Device> devices) {
    return new EngineSettings(specs, run.toBuilder().select(ops, checks, devices).build(), expectedFailures, accept,
        docsBase, allure, timings);
  }

  /** These settings with the run on libtorch {@code runtimes} ({@code 2.10.0}), oldest first. */
  public EngineSettings onRuntimes(List<String> runtimes) {
    return new EngineSettings(specs, run.toBuilder().runtimes(runtimes).build(), expectedFailures, accept, docsBase,
        allure, timings);
  }

  /**
   * These settings with the run narrowed to the ops of its shard, packed over every op of {@code files}
   * in discovery order ({@link Shard#pack}); all of them when the run is not sharded. Each
   * spec then runs its part of the ops ({@link EngineRun} does not shard again), library-wide checks included.
   */
  public EngineSettings sharded(List<SpecFile> files) {
    Shard shard = run.shard();
    if (shard.count() == 1) {
      return this;
    }
    List<String> ops = files.stream().filter(java.util.Objects::nonNull)
        .flatMap(f -> EngineTree.ops(f, this).stream()).map(OpSpec::op).toList();
    List<String> libraries = files.stream().filter(java.util.Objects::nonNull).map(f -> f.library().getFileName().toString())
        .toList();
    ShardPacking packing = shard.pack(libraries, ops);
    List<String> mine = new java.util.ArrayList<>();
    for (int k = 0; k < ops.size(); k++) {
      if (packing.owns(k)) {
        mine.add(ops.get(k));
      }
    }
    if (mine.isEmpty()) {
      // no ops would mean all of them to the run
      throw new IllegalArgumentException(PREFIX + "shard " + shard + " has none of the " + ops.size()
          + " ops discovered: use fewer shards");
    }
    System.out.println("opcheck4j: " + packing.describe() + "; " + mine.size() + " of " + ops.size() + " ops");
    return new EngineSettings(specs, run.toBuilder().select(mine, run.checks(), run.devices()).build(), expectedFailures, accept,
        docsBase, allure, timings);
  }

  /** These settings with the run judged by {@code expected} (the file {@link #expectedFailures} names, read). */
  public EngineSettings judgedBy(dev.opcheck4j.run.plan.ExpectedFailures expected) {
    return new EngineSettings(specs, run.toBuilder().expectedFailures(expected).build(), expectedFailures, accept,
        docsBase, allure, timings);
  }

  /** What a finding becomes in this run. */
  public SeverityPolicy severity() {
    return run.severity();
  }

  /** The checks selected, in registry order. */
  public List<Check> selectedChecks() {
    return run.checks().isEmpty() ? BuiltinChecks.all() : BuiltinChecks.select(run.checks());
  }

  /** The devices under test: cpu, meta and cuda unless narrowed (cuda without a GPU gives skips). */
  public List<Device> selectedDevices() {
    return run.devices().isEmpty() ? List.of(Device.CPU, Device.META, Device.CUDA) : run.devices();
  }

  /** Every parameter with the value in force, in the order of {@link RunOptions}, for the console and the reports. */
  public Map<String, String> describe() {
    Map<RunOption<?>, Object> values = new HashMap<>();
    values.put(RunOptions.SPECS, specs);
    values.put(RunOptions.OPS, run.ops());
    values.put(RunOptions.CHECKS, run.checks());
    values.put(RunOptions.REQUIRE, run.require());
    values.put(RunOptions.DEVICES, selectedDevices());
    values.put(RunOptions.RUNTIMES, run.runtimes().isEmpty() ? RunOptions.RUNTIMES.defaultValue() : run.runtimes());
    values.put(RunOptions.SEED, run.seed());
    values.put(RunOptions.TRIES, run.tries());
    values.put(RunOptions.ALL_TRIES, run.allTries());
    values.put(RunOptions.JOBS, run.jobs());
    values.put(RunOptions.TIMEOUT, run.timeout());
    values.put(RunOptions.WARNINGS_AS_ERRORS, run.warningsAsErrors());
    values.put(RunOptions.STRICT, run.severity().strict());
    values.put(RunOptions.EXPECTED_FAILURES, expectedFailures);
    values.put(RunOptions.TAGS, run.tags());
    values.put(RunOptions.ACCEPT_ENGINE, accept);
    values.put(RunOptions.CACHE, run.cache());
    values.put(RunOptions.REPRO, run.repro());
    values.put(RunOptions.PACKAGES, run.packages());
    values.put(RunOptions.MIN_LINE_COVERAGE, run.minLineCoverage());
    values.put(RunOptions.REPORT_DIR, run.reportDir());
    values.put(RunOptions.ALLURE, allure);
    values.put(RunOptions.DOCS_URL, docsBase);
    values.put(RunOptions.SHARD, run.shard());
    values.put(RunOptions.TIMINGS, timings);
    Map<String, String> m = new LinkedHashMap<>();
    for (RunOption<?> row : RunOptions.all()) {
      if (row.key() != null) {
        m.put(row.engineKey(), row.show(values.get(row)));
      }
    }
    return m;
  }
}
