package dev.opcheck4j.junit;

import dev.opcheck4j.api.Rerun;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.plan.RunOptions;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.LibraryLoadException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A run from Java code, for assertions on the results themselves:
 *
 * <pre>{@code
 * List<CheckResult> results = OpCheck.fromSpec(spec).ops("my_ops::crop").checks("fake").seed(99).tries(50)
 *     .run().report().results();
 * }</pre>
 *
 * It goes through the same {@link Launcher} as the engine and the command line. To get JUnit tests
 * per op, check and device, put the spec under {@code src/test/resources/opcheck/}: the opcheck4j
 * engine runs it (docs/junit.md). What is not set takes the default of its row of {@link RunOptions}.
 */
public final class OpCheck {
  private Path library;
  private Path spec;
  private final List<String> checks = new ArrayList<>();
  private final List<String> ops = new ArrayList<>();
  private final List<Device> devices = new ArrayList<>();
  private long seed = RunOptions.SEED.defaultValue();
  private int tries = RunOptions.TRIES.defaultValue();
  private boolean allTries = RunOptions.ALL_TRIES.defaultValue();
  private Path baseline;
  private final java.util.List<Path> packages = new java.util.ArrayList<>();
  private SeverityPolicy severity = SeverityPolicy.DEFAULT;

  private OpCheck() {}

  /** Every op the library at {@code path} registers (or those a {@link #spec} names). */
  public static OpCheck library(Path path) {
    OpCheck c = new OpCheck();
    c.library = path;
    return c;
  }

  /** The ops, examples and settings of a spec file, with the library the spec names. */
  public static OpCheck fromSpec(Path specFile) {
    return new OpCheck().spec(specFile);
  }

  /** The spec's ops, examples and settings; the library given to {@link #library}, if any, wins. */
  public OpCheck spec(Path specFile) {
    this.spec = specFile;
    return this;
  }

  /** Only these ops (default: all the spec or library has). */
  public OpCheck ops(String... names) {
    ops.addAll(List.of(names));
    return this;
  }

  /** Check ids or families to run (default: all). */
  public OpCheck checks(String... idsOrFamilies) {
    checks.addAll(List.of(idsOrFamilies));
    return this;
  }

  /** Devices to run on (default: every available one, plus cuda reported as skipped without a GPU). */
  public OpCheck devices(String... labels) {
    for (String l : labels) {
      devices.add(RunOptions.DEVICES.parse("devices", l));
    }
    return this;
  }

  public OpCheck seed(long value) {
    this.seed = value;
    return this;
  }

  /** Generated inputs per op and device (0: examples only). */
  public OpCheck tries(int value) {
    this.tries = value;
    return this;
  }

  /**
   * Whether every one of the {@link #tries} is made (as {@code --all-tries}); by default generation stops once it
   * finds no new ground (docs/generation.md#when-generation-stops), and the tries are a ceiling.
   */
  public OpCheck allTries(boolean value) {
    this.allTries = value;
    return this;
  }

  /**
   * Adds schema.compatible against a baseline recorded from an earlier release
   * ({@code ./opcheck baseline}, docs/baseline.md): one test per op of the baseline and of the library.
   *
   * @throws java.io.IOException naming the file when it is missing or not a baseline
   */
  public OpCheck baseline(Path file) throws java.io.IOException {
    dev.opcheck4j.torch.SchemaBaseline.read(file);
    this.baseline = file;
    return this;
  }

  /**
   * Adds the package checks ({@code aoti.*}, docs/aoti.md) of AOTInductor packages the library must keep serving,
   * as {@code --package}: one test per op each calls.
   */
  public OpCheck packages(Path... files) {
    this.packages.addAll(java.util.List.of(files));
    return this;
  }

  /** Whether findings that are warnings fail (as {@code --warnings-as-errors}); default false. */
  public OpCheck warningsAsErrors(boolean value) {
    this.severity = new SeverityPolicy(value, severity.strict());
    return this;
  }

  /** Whether findings of note checks are warnings (as {@code --strict}); default false. */
  public OpCheck strict(boolean value) {
    this.severity = new SeverityPolicy(severity.warningsAsErrors(), value);
    return this;
  }

  /** Runs everything and returns the report (for any test engine, or none). */
  public Outcomes run() throws LibraryLoadException, SpecException {
    RunRequest.Builder request = RunRequest.builder().ops(ops).checks(checks).devices(devices).seed(seed).tries(tries)
        .allTries(allTries).severity(severity).baseline(baseline).packages(packages);
    if (spec != null) {
      request.spec(spec, library);
    } else {
      request.library(library);
    }
    RunOutcome outcome = Launcher.execute(request.build(), dev.opcheck4j.api.RunListener.NONE);
    // a front end: results leave the run with what reproduces them, and this one writes it as a command line
    RunReport r = outcome.report();
    RunReport report = new RunReport(r.run(), r.checks(), r.results().stream().map(x -> x.withRerun(Rerun.CLI)).toList(),
        r.coverage());
    return new Outcomes(report, outcome.inputErrors(), outcome.ops());
  }

  /**
   * A finished run.
   *
   * @param report every result
   * @param inputErrors problems with the spec found while running (unknown ops, invalid examples)
   * @param ops the ops that were checked
   */
  public record Outcomes(RunReport report, List<String> inputErrors, List<String> ops) {}
}
