package dev.opcheck4j.bench;

import dev.opcheck4j.api.Fact;
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

  /** Placeholder until generation lands (issue 5). */
  public void generation() {
    out.println("bench generation: not available yet");
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
