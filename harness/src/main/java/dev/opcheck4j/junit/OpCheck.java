package dev.opcheck4j.junit;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.run.ResultText;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.LibraryInfo;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.RunRequest;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.LibraryLoadException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.opentest4j.AssertionFailedError;

/**
 * The JUnit 5 entry point for op authors:
 *
 * <pre>{@code
 * @TestFactory
 * Stream<DynamicNode> myOps() throws Exception {
 *   return OpCheck.fromSpec(Path.of("src/test/resources/my_ops.json")).tries(100).dynamicTests();
 * }
 * }</pre>
 *
 * One container per op, one test per check and device ("fake.metadata on cpu"). A test fails
 * with every failed result rendered, is aborted (shown as skipped, with the reason) when the check
 * could not run, and errors on a harness error. Failures listed in {@link #expectedFailures} pass,
 * and a listed one that stops failing fails the test.
 */
public final class OpCheck {
  private Path library;
  private Path spec;
  private final List<String> checks = new ArrayList<>();
  private final List<String> ops = new ArrayList<>();
  private final List<Device> devices = new ArrayList<>();
  private long seed = 20261122L;
  private int tries = 100;
  private ExpectedFailures expected = ExpectedFailures.NONE;
  private Path baseline;
  private boolean warningsAsErrors;

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
      devices.add(Device.parse(l).orElseThrow(() -> new IllegalArgumentException("unknown device " + l)));
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

  /** Whether findings of warning checks fail their tests (as {@code --warnings-as-errors}); default false. */
  public OpCheck warningsAsErrors(boolean value) {
    this.warningsAsErrors = value;
    return this;
  }

  public OpCheck expectedFailures(ExpectedFailures failures) {
    this.expected = failures;
    return this;
  }

  public OpCheck expectedFailures(Path file) throws SpecException {
    return expectedFailures(ExpectedFailures.read(file));
  }

  /** Runs everything and returns the report (for any test engine, or none). */
  public Outcomes run() throws LibraryLoadException, SpecException {
    RunRequest.Builder request = RunRequest.builder().ops(ops).checks(checks).devices(devices).seed(seed).tries(tries)
        .warningsAsErrors(warningsAsErrors).baseline(baseline);
    if (spec != null) {
      request.spec(spec, library);
    } else {
      request.library(library);
    }
    RunOutcome outcome = Launcher.execute(request.build(), r -> {});
    for (LibraryInfo lib : outcome.libraries()) {
      expected.requireOpsOf(lib);
    }
    return new Outcomes(outcome.report(), outcome.inputErrors(), outcome.ops());
  }

  /** The run as dynamic tests: a container per op, a test per check and device. */
  public Stream<DynamicNode> dynamicTests() throws LibraryLoadException, SpecException {
    Outcomes outcomes = run();
    List<DynamicNode> nodes = new ArrayList<>();
    if (!outcomes.inputErrors().isEmpty()) {
      nodes.add(DynamicTest.dynamicTest("input errors", () -> {
        throw new AssertionFailedError(String.join("\n", outcomes.inputErrors()));
      }));
    }
    Set<String> failedSomewhere = outcomes.report().results().stream()
        .filter(r -> r.outcome() == Outcome.FAILED).map(r -> r.op() + "|" + r.check()).collect(Collectors.toSet());
    Map<String, Map<String, List<CheckResult>>> byOp = new LinkedHashMap<>();
    for (CheckResult r : outcomes.report().results()) {
      String test = r.check() + (r.device().equals(CheckResult.NONE) ? "" : " on " + r.device());
      byOp.computeIfAbsent(r.op(), k -> new LinkedHashMap<>()).computeIfAbsent(test, k -> new ArrayList<>()).add(r);
    }
    for (Map.Entry<String, Map<String, List<CheckResult>>> op : byOp.entrySet()) {
      List<DynamicNode> tests = new ArrayList<>();
      for (Map.Entry<String, List<CheckResult>> t : op.getValue().entrySet()) {
        List<CheckResult> results = t.getValue();
        tests.add(DynamicTest.dynamicTest(t.getKey(), () -> verify(op.getKey(), results.get(0).check(), results, failedSomewhere)));
      }
      nodes.add(DynamicContainer.dynamicContainer(op.getKey(), tests.stream()));
    }
    return nodes.stream();
  }

  private void verify(String op, String check, List<CheckResult> results, Set<String> failedSomewhere) {
    List<CheckResult> errored = results.stream().filter(r -> r.outcome() == Outcome.ERRORED).toList();
    if (!errored.isEmpty()) {
      throw new IllegalStateException("harness error\n" + render(errored));
    }
    List<CheckResult> failed = results.stream().filter(r -> r.outcome() == Outcome.FAILED).toList();
    var xfail = expected.reason(op, check);
    if (xfail.isPresent()) {
      // an expected failure belongs to (op, check): it holds when the check fails on some device
      if (!failedSomewhere.contains(op + "|" + check)) {
        throw new AssertionFailedError("[" + check + "] " + op + " is listed as an expected failure (" + xfail.get()
            + ") but failed on no device: remove it from the expected failures");
      }
      if (!failed.isEmpty()) {
        return;
      }
    }
    if (!failed.isEmpty()) {
      throw new AssertionFailedError(render(failed));
    }
    if (results.stream().allMatch(r -> r.outcome() == Outcome.SKIPPED)) {
      Assumptions.abort(results.stream().map(r -> r.fact("reason").orElse("skipped")).distinct()
          .collect(Collectors.joining("; ")));
    }
  }

  private static String render(List<CheckResult> results) {
    return results.stream().map(ResultText::render).collect(Collectors.joining("\n\n"));
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
