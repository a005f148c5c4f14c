package dev.opcheck4j.bench;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.RunRequest;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.TorchRuntime;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.gradcheck.JacobianCheck;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.Operator;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Benchmarks run by {@code ./opcheck bench}: measured, printed, never asserted in tests. Each line
 * is {@code bench <name>: <numbers>}.
 */
public final class Benchmarks {
  private final PrintStream out;
  private final Path libraries;

  public Benchmarks(PrintStream out, Path libraries) {
    this.out = out;
    this.libraries = libraries;
  }

  /** gradcheck.jacobian in fast and slow mode on good_ops::scaled_square with a 64x64 float64 input. */
  public void gradcheck() throws Exception {
    Operator op = OpLibrary.load(libraries.resolve("libgood_ops.so")).op("good_ops::scaled_square");
    Example ex = example(tensor(List.of(64L, 64L), "float64", true), number(2.0));
    JacobianCheck check = new JacobianCheck();
    for (OpSpec.Gradcheck mode : List.of(OpSpec.Gradcheck.DEFAULT, OpSpec.Gradcheck.DEFAULT.slow())) {
      OpSpec spec = new OpSpec(op.name(), List.of(), Map.of(), Optional.empty(), List.of(ex), "bench", mode, dev.opcheck4j.spec.Vary.NONE);
      Subject s = new Subject(null, op, spec, Device.CPU, ex, 1L);
      check.evaluate(s); // warm-up
      long t0 = System.nanoTime();
      Verdict v = check.evaluate(s);
      double ms = (System.nanoTime() - t0) / 1e6;
      String calls = v.facts().stream().filter(f -> f.key().equals("calls")).map(Fact::value).findFirst().orElse("?");
      out.printf("bench gradcheck %s mode, %s 64x64 float64: %s, %.1f ms, %s%n",
          mode.fast() ? "fast" : "slow", op.name(), calls, ms, v.outcome().label());
    }
  }

  /**
   * Generation throughput on my_ops::mul_add (a small elementwise op): variants generated and
   * materialized per second, and whole tries (generate, call, every generated check) per second.
   */
  public void generation(Path specs) throws Exception {
    SpecFile file = SpecReader.read(specs.resolve("my_ops.json"));
    OpSpec spec = file.ops().stream().filter(o -> o.op().equals("my_ops::mul_add")).findFirst().orElseThrow();
    OpLibrary lib = OpLibrary.load(file.library());
    Operator op = lib.op(spec.op());
    ExampleGenerator gen = new ExampleGenerator(op.schema(), spec.examples().get(0), spec.vary());
    int n = 2000;
    for (int warm = 0; warm < 2; warm++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        Materializer.bind(op, gen.generate(Choices.random(i)), Device.CPU, 1L);
      }
      double s = (System.nanoTime() - t0) / 1e9;
      if (warm == 1) {
        out.printf("bench generation generate+materialize, %s: %d variants in %.2f s, %.0f variants/s%n", op.name(), n, s, n / s);
      }
    }
    int tries = 500;
    RunRequest.Builder base = RunRequest.builder().spec(file.file()).ops(List.of(spec.op())).devices(List.of(Device.CPU))
        .seed(1L).jobs(1).isolation(RunRequest.Isolation.IN_PROCESS);
    Launcher.execute(base.tries(tries).build(), r -> {}); // warm-up
    long t1 = System.nanoTime();
    Launcher.execute(base.tries(0).build(), r -> {});
    long t2 = System.nanoTime();
    Launcher.execute(base.tries(tries).build(), r -> {});
    long t3 = System.nanoTime();
    double triesSeconds = ((t3 - t2) - (t2 - t1)) / 1e9;
    out.printf("bench generation tries, %s on cpu with every generated check: %d tries in %.2f s, %.0f tries/s%n",
        op.name(), tries, triesSeconds, tries / triesSeconds);
  }

  static Example example(SpecValue... args) {
    return new Example("bench#example", List.of(args), Map.of());
  }

  static SpecValue tensor(List<Long> shape, String dtype, boolean requiresGrad) {
    List<SpecValue> sizes = new ArrayList<>();
    for (long s : shape) {
      sizes.add(new SpecValue(s, "bench"));
    }
    return new SpecValue(Map.of(
        "tensor", new SpecValue(sizes, "bench"),
        "dtype", new SpecValue(dtype, "bench"),
        "requires_grad", new SpecValue(requiresGrad, "bench")), "bench");
  }

  static SpecValue number(double d) {
    return new SpecValue(d, "bench");
  }
}
