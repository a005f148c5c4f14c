package dev.opcheck4j.junit;

import dev.opcheck4j.checks.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.RunRequest;
import dev.opcheck4j.torch.Device;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
    String docsBase) {

  public static final String PREFIX = "opcheck4j.";

  public EngineSettings {
    specs = List.copyOf(specs);
    ops = List.copyOf(ops);
    checks = List.copyOf(checks);
    devices = List.copyOf(devices);
  }

  /**
   * Reads the parameters.
   *
   * @throws IllegalArgumentException naming the parameter and what it accepts
   */
  public static EngineSettings from(ConfigurationParameters p) {
    Function<String, Optional<String>> get = k -> p.get(PREFIX + k).map(String::strip).filter(s -> !s.isEmpty());
    List<String> checks = list(get.apply("checks"));
    if (!checks.isEmpty()) {
      BuiltinChecks.select(checks); // an unknown id fails here, with the known ones
    }
    List<Device> devices = new ArrayList<>();
    for (String d : list(get.apply("devices"))) {
      devices.add(Device.parse(d).orElseThrow(() ->
          new IllegalArgumentException(PREFIX + "devices: unknown device '" + d + "'; expected cpu, meta or cuda")));
    }
    return new EngineSettings(
        list(get.apply("specs")).stream().map(Path::of).toList(),
        list(get.apply("ops")),
        checks,
        devices,
        number(get, "seed", RunRequest.DEFAULT_SEED, Long::parseLong, Long.MIN_VALUE),
        (int) number(get, "tries", RunRequest.DEFAULT_TRIES, Long::parseLong, 0),
        (int) number(get, "jobs", Runtime.getRuntime().availableProcessors(), Long::parseLong, 1),
        get.apply("timeout").map(EngineSettings::duration).orElse(RunRequest.DEFAULT_TIMEOUT),
        get.apply("warningsAsErrors").map(Boolean::parseBoolean).orElse(false),
        get.apply("expectedFailures").map(Path::of),
        get.apply("reportDir").map(Path::of).orElse(Path.of("target", "opcheck")),
        get.apply("docsUrl").orElse("docs/checks/"));
  }

  /** The checks selected, in registry order. */
  public List<Check> selectedChecks() {
    return checks.isEmpty() ? BuiltinChecks.all() : BuiltinChecks.select(checks);
  }

  /** The devices under test: cpu, meta and cuda unless narrowed (cuda without a GPU gives skips). */
  public List<Device> selectedDevices() {
    return devices.isEmpty() ? List.of(Device.CPU, Device.META, Device.CUDA) : devices;
  }

  /** Every parameter with the value in force, in a fixed order, for the console and the reports. */
  public Map<String, String> describe() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(PREFIX + "specs", specs.isEmpty() ? "(none beyond those discovered)" : String.join(",", specs.stream().map(Path::toString).toList()));
    m.put(PREFIX + "ops", ops.isEmpty() ? "(all)" : String.join(",", ops));
    m.put(PREFIX + "checks", checks.isEmpty() ? "(all)" : String.join(",", checks));
    m.put(PREFIX + "devices", String.join(",", selectedDevices().stream().map(Device::label).toList()));
    m.put(PREFIX + "seed", Long.toString(seed));
    m.put(PREFIX + "tries", Integer.toString(tries));
    m.put(PREFIX + "jobs", Integer.toString(jobs));
    m.put(PREFIX + "timeout", timeout.toSeconds() + "s");
    m.put(PREFIX + "warningsAsErrors", Boolean.toString(warningsAsErrors));
    m.put(PREFIX + "expectedFailures", expectedFailures.map(Path::toString).orElse("(none)"));
    m.put(PREFIX + "reportDir", reportDir.toString());
    m.put(PREFIX + "docsUrl", docsBase);
    return m;
  }

  private static List<String> list(Optional<String> value) {
    return value.map(v -> Arrays.stream(v.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList())
        .orElse(List.of());
  }

  private static long number(Function<String, Optional<String>> get, String key, long dflt,
      Function<String, Long> parse, long min) {
    Optional<String> v = get.apply(key);
    if (v.isEmpty()) {
      return dflt;
    }
    long n;
    try {
      n = parse.apply(v.get());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(PREFIX + key + " takes a whole number, got '" + v.get() + "'");
    }
    if (n < min) {
      throw new IllegalArgumentException(PREFIX + key + " takes a whole number >= " + min + ", got '" + v.get() + "'");
    }
    return n;
  }

  /** {@code 90}, {@code 90s}, {@code 2m} or an ISO-8601 duration such as {@code PT90S}. */
  static Duration duration(String v) {
    try {
      if (v.startsWith("P") || v.startsWith("p")) {
        return Duration.parse(v);
      }
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      }
      if (v.endsWith("m")) {
        return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
      }
      return Duration.ofSeconds(Long.parseLong(v.endsWith("s") ? v.substring(0, v.length() - 1) : v));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(PREFIX + "timeout takes a duration such as 90s or 2m, got '" + v + "'");
    }
  }
}
