package dev.opcheck4j.junit;

import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.checks.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.plan.RunOption;
import dev.opcheck4j.run.plan.RunOptions;
import dev.opcheck4j.torch.Device;
import java.nio.file.Path;
import java.time.Duration;
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
 * @param specs extra spec files ({@code opcheck4j.specs}, comma-separated paths)
 * @param ops only these ops ({@code opcheck4j.ops}; empty: all a spec names)
 * @param checks check ids or families ({@code opcheck4j.checks}; empty: all)
 * @param devices devices under test ({@code opcheck4j.devices}; empty: cpu, meta and cuda)
 * @param seed seed of everything drawn at random ({@code opcheck4j.seed})
 * @param tries generated inputs per op and device ({@code opcheck4j.tries})
 * @param jobs worker processes ({@code opcheck4j.jobs})
 * @param timeout longest a single check may take ({@code opcheck4j.timeout}, e.g. {@code 60s})
 * @param warningsAsErrors whether a warning fails its test ({@code opcheck4j.warningsAsErrors})
 * @param expectedFailures the expected-failures file, if any ({@code opcheck4j.expectedFailures})
 * @param reportDir where the report formats write ({@code opcheck4j.reportDir})
 * @param docsBase where check doc pages are, for report links ({@code opcheck4j.docsUrl}; the
 *     page of {@code fake.metadata} is {@code <docsBase>fake.metadata.md})
 * @param require check families that must run on every op ({@code opcheck4j.require}; empty: none)
 * @param cache the result cache's directory ({@code opcheck4j.cache}), or null for none
 */
public record EngineSettings(
    List<Path> specs,
    List<String> ops,
    List<String> checks,
    List<Device> devices,
    long seed,
    int tries,
    int jobs,
    Duration timeout,
    boolean warningsAsErrors,
    Optional<Path> expectedFailures,
    Path reportDir,
    String docsBase,
    List<String> require,
    Path cache) {

  public static final String PREFIX = RunOptions.ENGINE_PREFIX;

  public EngineSettings {
    specs = List.copyOf(specs);
    ops = List.copyOf(ops);
    checks = List.copyOf(checks);
    devices = List.copyOf(devices);
    require = List.copyOf(require);
  }

  /** Settings that require no family. */
  public EngineSettings(List<Path> specs, List<String> ops, List<String> checks, List<Device> devices, long seed,
      int tries, int jobs, Duration timeout, boolean warningsAsErrors, Optional<Path> expectedFailures, Path reportDir,
      String docsBase) {
    this(specs, ops, checks, devices, seed, tries, jobs, timeout, warningsAsErrors, expectedFailures, reportDir,
        docsBase, List.of(), null);
  }

  /**
   * Reads the parameters, each by its row of {@link RunOptions}.
   *
   * @throws IllegalArgumentException naming the parameter and what it accepts
   */
  public static EngineSettings from(ConfigurationParameters p) {
    Function<String, Optional<String>> get = p::get;
    List<String> checks = RunOptions.CHECKS.readAll(get);
    if (!checks.isEmpty()) {
      BuiltinChecks.select(checks); // an unknown id fails here, with the known ones
    }
    List<String> require = RunOptions.REQUIRE.readAll(get);
    BuiltinChecks.select(require);
    return new EngineSettings(
        RunOptions.SPECS.readAll(get),
        RunOptions.OPS.readAll(get),
        checks,
        RunOptions.DEVICES.readAll(get),
        RunOptions.SEED.value(get),
        RunOptions.TRIES.value(get),
        RunOptions.JOBS.value(get),
        RunOptions.TIMEOUT.value(get),
        RunOptions.WARNINGS_AS_ERRORS.value(get),
        RunOptions.EXPECTED_FAILURES.read(get),
        // a test run always writes its reports; the command line writes them only when asked
        RunOptions.REPORT_DIR.read(get).orElse(Path.of("target", "opcheck")),
        RunOptions.DOCS_URL.value(get),
        require,
        RunOptions.CACHE.read(get).orElse(null));
  }

  /** What a finding becomes in this run. */
  public SeverityPolicy severity() {
    return warningsAsErrors ? SeverityPolicy.WARNINGS_AS_ERRORS : SeverityPolicy.DEFAULT;
  }

  /** The checks selected, in registry order. */
  public List<Check> selectedChecks() {
    return checks.isEmpty() ? BuiltinChecks.all() : BuiltinChecks.select(checks);
  }

  /** The devices under test: cpu, meta and cuda unless narrowed (cuda without a GPU gives skips). */
  public List<Device> selectedDevices() {
    return devices.isEmpty() ? List.of(Device.CPU, Device.META, Device.CUDA) : devices;
  }

  /** Every parameter with the value in force, in the order of {@link RunOptions}, for the console and the reports. */
  public Map<String, String> describe() {
    Map<RunOption<?>, Object> values = new HashMap<>();
    values.put(RunOptions.SPECS, specs);
    values.put(RunOptions.OPS, ops);
    values.put(RunOptions.CHECKS, checks);
    values.put(RunOptions.REQUIRE, require);
    values.put(RunOptions.DEVICES, selectedDevices());
    values.put(RunOptions.SEED, seed);
    values.put(RunOptions.TRIES, tries);
    values.put(RunOptions.JOBS, jobs);
    values.put(RunOptions.TIMEOUT, timeout);
    values.put(RunOptions.WARNINGS_AS_ERRORS, warningsAsErrors);
    values.put(RunOptions.EXPECTED_FAILURES, expectedFailures);
    values.put(RunOptions.CACHE, cache);
    values.put(RunOptions.REPORT_DIR, reportDir);
    values.put(RunOptions.DOCS_URL, docsBase);
    Map<String, String> m = new LinkedHashMap<>();
    for (RunOption<?> row : RunOptions.all()) {
      if (row.key() != null) {
        m.put(row.engineKey(), row.show(values.get(row)));
      }
    }
    return m;
  }
}
