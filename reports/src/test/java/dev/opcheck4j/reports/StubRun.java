package dev.opcheck4j.reports;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ExampleRef;
import dev.opcheck4j.api.Expectation;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.KernelLines;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Heatmap;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.Repro;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import java.time.Instant;
import java.util.List;

/**
 * The one stub run every format's golden file is made from (JMH's way of sealing formats): every
 * outcome, a warning, a note, a generated failure with its minimal example, a crash, a timeout, a
 * library-scope result, non-ASCII text, a hostile HTML message and a very long message. The
 * generated failure, the crash and the timeout carry typed findings (a crash is known by its cause).
 */
final class StubRun {
  static final String HOSTILE = "<script>alert(1)</script>";
  static final String NON_ASCII = "größe ≠ 3 — ε = 1e-06, 日本語";

  private StubRun() {}

  static RunReport report() {
    RunInfo run = new RunInfo("0.1.0", "2.10.0", "1.5.13", 42L, 100, 2,
        List.of(new RunInfo.DeviceInfo("cpu", true, null), new RunInfo.DeviceInfo("meta", true, null),
            new RunInfo.DeviceInfo("cuda", false, "no CUDA device in this process (torch.cuda_is_available() is false)")),
        List.of("registration.exists", "registration.dangling", "schema.types", "kernel.error", "mutation.undeclared",
            "mutation.unused", "fake.metadata", "gradcheck.jacobian", "determinism", "kernel.crash", "kernel.timeout",
            "trace.specialization"),
        List.of(new RunInfo.Input("specs/stub_ops.json", "/opt/stub/libstub_ops.so",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")),
        Instant.parse("2026-11-22T10:00:00Z"), 3456, "./opcheck check --spec specs/stub_ops.json --jobs 2 --seed 42",
        null);
    List<CheckInfo> checks = List.of(
        info("registration.exists", "the op is registered under its name", "error"),
        info("registration.dangling", "every implemented op has a schema", "error"),
        info("schema.types", "the schema uses only custom-op types", "error"),
        info("kernel.error", "the kernel runs on every example", "error"),
        info("mutation.undeclared", "arguments not declared (a!) are not changed", "error"),
        info("mutation.unused", "warns when an argument declared Tensor(a!) is not changed", "warning"),
        info("fake.metadata", "meta outputs match real outputs", "error"),
        info("gradcheck.jacobian", "analytic gradients match numerical ones", "error"),
        info("kernel.crash", "the kernel does not bring its process down", "error"),
        info("kernel.timeout", "the kernel returns within the time limit", "error"),
        info("determinism", "the same input gives the same output", "error"),
        info("trace.specialization", "the meta-serving kernel adds no guard on a symbolic size", "note"));
    String rerun = "./opcheck check --spec specs/stub_ops.json --op stub::scale --check mutation.undeclared"
        + " --device cpu --seed 42 --tries 100";
    List<CheckResult> results = List.of(
        new CheckResult("stub::*", "registration.dangling", "-", "-", Outcome.PASSED, List.of(), 0)
            .aboutLibrary("libstub_ops.so"),
        new CheckResult("stub::good", "registration.exists", "-", "-", Outcome.PASSED, List.of(), 0),
        new CheckResult("stub::good", "schema.types", "-", "-", Outcome.PASSED, List.of(), 850),
        new CheckResult("stub::good", "fake.metadata", "cpu", "specs/stub_ops.json#ops[0].examples[0]",
            Outcome.PASSED, List.of(), 12_345),
        new CheckResult("stub::good", "gradcheck.jacobian", "cpu", "specs/stub_ops.json#ops[0].examples[0]",
            Outcome.PASSED, List.of(new Fact("mode", "fast and slow, float64")), 40_210),
        new CheckResult("stub::good", "gradcheck.jacobian", "cuda", "specs/stub_ops.json#ops[0].examples[0]",
            Outcome.SKIPPED, List.of(new Fact("reason", "no CUDA device in this process")), 0),
        new CheckResult("stub::scale", "registration.exists", "-", "-", Outcome.PASSED, List.of(), 0),
        new CheckResult("stub::scale", "mutation.undeclared", "cpu", "generated from specs/stub_ops.json#ops[1].examples[0]",
            Outcome.FAILED, List.of(
                new Fact("expected", "argument 'x' unchanged (scale(Tensor x, float s) -> Tensor)"),
                new Fact("but was", "3 of 12 elements changed, max |diff| 0.41 at [0, 2]"),
                new Fact("example", "specs/stub_ops.json#ops[1].examples[0] (try 7)  x=float32[4, 3] strides [1, 4], s=2.0"),
                new Fact("minimal example", "x=float32[1] [1.0], s=2.0  (shrunk in 5 steps)"),
                new Fact("seed", "42"),
                new Fact("rerun", rerun),
                new Fact("hint", "declare 'Tensor(a!) x' in the schema, or write into a new tensor")), 230_400)
            .withExample(new ExampleRef("specs/stub_ops.json#ops[1].examples[0]", true, 7, 42L,
                "x=float32[4, 3] strides [1, 4], s=2.0"))
            .withFinding(Finding.of("argument 'x' unchanged (scale(Tensor x, float s) -> Tensor)",
                "3 of 12 elements changed, max |diff| 0.41 at [0, 2]",
                "declare 'Tensor(a!) x' in the schema, or write into a new tensor",
                new Cause.Contract("undeclared mutation", "argument 'x'")),
                new Repro("--spec specs/stub_ops.json", "stub::scale", "mutation.undeclared", "cpu", 42, 100,
                    "specs/stub_ops.json#ops[1].examples[0]", "x=float32[1] [1.0], s=2.0", false)),
        new CheckResult("stub::scale", "mutation.unused", "cpu", "specs/stub_ops.json#ops[1].examples[0]",
            Outcome.WARNING, List.of(new Fact("warning", "out declared (a!) but not changed by this example"),
                new Fact("hint", "drop the (a!) if the kernel never writes 'out'")), 3_100),
        new CheckResult("stub::scale", "trace.specialization", "cpu", "specs/stub_ops.json#ops[1].examples[0]",
            Outcome.NOTE, List.of(new Fact("expected", "the kernel keeps the symbolic sizes symbolic"),
                new Fact("but was", "the kernel specialises on Eq(s0, 4) at sizes() on argument 'x'"),
                new Fact("hint", "let an aten op size the output (empty_like) in stable-ABI code")), 1_800)
            .withFinding(Finding.of("the kernel keeps the symbolic sizes symbolic",
                "the kernel specialises on Eq(s0, 4) at sizes() on argument 'x'",
                "let an aten op size the output (empty_like) in stable-ABI code",
                new Cause.Contract("specialisation", "Eq(s0, 4)")), null),
        new CheckResult("stub::crashy", "kernel.crash", "cpu", "specs/stub_ops.json#ops[2].examples[0]",
            Outcome.FAILED, List.of(new Fact("expected", "the kernel returns or raises"),
                new Fact("but was", "the worker died with SIGSEGV (signal 11)"),
                new Fact("hint", "run the rerun line under gdb; the op is skipped for the rest of the run")), 812_000)
            .withFinding(Finding.of("the kernel returns or raises", "the worker died with SIGSEGV (signal 11)",
                "run the rerun line under gdb; the op is skipped for the rest of the run", new Cause.Crash("SIGSEGV")),
                null),
        new CheckResult("stub::slow", "kernel.timeout", "cpu", "specs/stub_ops.json#ops[3].examples[0]",
            Outcome.FAILED, List.of(new Fact("expected", "the kernel returns within 60 s"),
                new Fact("but was", "still running after 60 s; the worker was killed")), 60_000_000)
            .withFinding(Finding.of("the kernel returns within 60 s", "still running after 60 s; the worker was killed",
                null, new Cause.Timeout(60)), null),
        new CheckResult("stub::hostile", "kernel.error", "cpu", "specs/stub_ops.json#ops[4].examples[0]",
            Outcome.FAILED, List.of(new Fact("expected", "the kernel runs on the example"),
                new Fact("but was", "raised: " + HOSTILE),
                new Fact("values", NON_ASCII)), 2_000),
        new CheckResult("stub::hostile", "determinism", "cpu", "specs/stub_ops.json#ops[4].examples[0]",
            Outcome.ERRORED, List.of(new Fact("harness error", "IllegalStateException: " + "long message ".repeat(400).trim())), 5_000),
        new CheckResult("stub::hostile", "fake.metadata", "meta", "specs/stub_ops.json#ops[4].examples[0]",
            Outcome.SKIPPED, List.of(new Fact("reason", "requires kernel.error, which failed")), 0),
        // judged by an expected-failures file: one listed failure, one listed entry that no longer fails
        new CheckResult("stub::scale", "schema.types", "-", "-", Outcome.FAILED,
            List.of(new Fact("expected", "argument types a custom op may take"),
                new Fact("but was", "argument 'd' has type Dict(str, Tensor)")), 300)
            .expected(new Expectation(null, "stub::scale", "schema.types", "Dict arguments wait for issue 7",
                "expected-failures.yaml", "expected-failures.yaml:2:17")),
        new CheckResult("stub::good", "alias", "-", "-", Outcome.UNEXPECTED_PASS,
            List.of(new Fact("expected", "a failure of alias (listed: returns its input)"),
                new Fact("but was", "alias ran on stub::good on cpu and failed nowhere"),
                new Fact("listed at", "expected-failures.yaml:5:10")), 0, null, null, null, null,
            new Expectation("spec:specs/stub_ops.json", "stub::good", "alias", "returns its input",
                "expected-failures.yaml", "expected-failures.yaml:5:10")));
    return new RunReport(run, checks, results).withKernelLines(List.of(kernelLines()));
  }

  /** One op's kernel line coverage, as a library built with gcov's coverage gives it. */
  static KernelLines kernelLines() {
    return new KernelLines("stub::scale", "libstub_ops.so", new KernelLines.Tally(4, 3, 2, 1),
        new KernelLines.Tally(4, 4, 2, 2), List.of(new KernelLines.Function("scale(at::Tensor, double)", "/src/stub_ops.cpp",
            List.of(new KernelLines.Line(10, "Tensor scale(Tensor x, double s) {", KernelLines.Run.EXAMPLES),
                new KernelLines.Line(11, "  // " + HOSTILE, KernelLines.Run.NO_CODE),
                new KernelLines.Line(12, "  if (x.scalar_type() == ScalarType::Double) return scale_double(x, s);",
                    KernelLines.Run.EXAMPLES),
                new KernelLines.Line(13, "  return scale_float(x, s);", KernelLines.Run.GENERATED),
                new KernelLines.Line(14, "}", KernelLines.Run.EXAMPLES)))), null);
  }

  /**
   * A run with the two findings reports draw: a reference.values mismatch with its |difference|
   * heatmap (a 3×4 output, two elements beyond tolerance, one not finite) and a gradcheck.jacobian
   * failure with the analytical and numerical Jacobians and their difference on one scale.
   */
  static RunReport withPictures() {
    RunReport base = report();
    List<Double> diff = List.of(0.0, 0.9, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.45, 0.0);
    Heatmap difference = new Heatmap("|difference| of output 0 [3, 4]", "difference of output 0", 3, 4, diff,
        List.of(1, 10), List.of(7), "");
    List<Double> ana = List.of(2.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, -6.0);
    List<Double> num = List.of(1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, -3.0);
    List<Double> delta = List.of(1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, -3.0);
    String group = "jacobian d output 0 / d x";
    List<Heatmap> jacobians = List.of(
        new Heatmap("analytical d output 0 / d x", group, 3, 3, ana, List.of(), List.of(), "rows: the 3 elements of output 0"),
        new Heatmap("numerical d output 0 / d x", group, 3, 3, num, List.of(), List.of(), "rows: the 3 elements of output 0"),
        new Heatmap("analytical − numerical", group, 3, 3, delta, List.of(0, 4, 8), List.of(), "rows: the 3 elements of output 0"));
    List<CheckResult> results = new java.util.ArrayList<>(base.results());
    results.add(new CheckResult("stub::sine", "reference.values", "cpu", "specs/stub_ops.json#ops[5].examples[0]",
        Outcome.FAILED, List.of(new Fact("expected", "the values of the spec's reference: torch.sin(x)"),
            new Fact("but was", "output 0: 2 of 12 elements differ beyond atol 1e-5, rtol 1.3e-6")), 4_000)
        .withFinding(Finding.of("the values of the spec's reference: torch.sin(x)",
            "output 0: 2 of 12 elements differ beyond atol 1e-5, rtol 1.3e-6", null,
            new Cause.ValueMismatch("output 0")).withHeatmaps(List.of(difference)), null));
    results.add(new CheckResult("stub::sine", "gradcheck.jacobian", "cpu", "specs/stub_ops.json#ops[5].examples[0]",
        Outcome.FAILED, List.of(new Fact("expected", "analytical Jacobian matches central finite differences"),
            new Fact("but was", "d output 0[2] / d x[2]: analytical -6.0, numerical -3.0")), 90_000)
        .withFinding(Finding.of("analytical Jacobian matches central finite differences",
            "d output 0[2] / d x[2]: analytical -6.0, numerical -3.0", null,
            new Cause.ValueMismatch("analytical Jacobian")).withHeatmaps(jacobians), null));
    return new RunReport(base.run(), base.checks(), results);
  }

  private static CheckInfo info(String id, String summary, String severity) {
    CheckInfo.Scope scope = id.startsWith("registration") || id.startsWith("schema") ? CheckInfo.Scope.OP
        : CheckInfo.Scope.EXAMPLE;
    return switch (severity) {
      case "warning" -> CheckInfo.warning(id, scope, summary);
      case "note" -> CheckInfo.note(id, scope, summary);
      default -> CheckInfo.error(id, scope, summary);
    };
  }
}
