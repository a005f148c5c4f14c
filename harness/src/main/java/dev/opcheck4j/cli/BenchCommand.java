package dev.opcheck4j.cli;

import dev.opcheck4j.bench.Benchmarks;
import java.nio.file.Path;
import java.util.List;

/** {@code bench}: measurements printed, never asserted (gradcheck, generation, isolation, examples). */
final class BenchCommand implements Command {
  @Override
  public String name() {
    return "bench";
  }

  @Override
  public String summary() {
    return "Measures and prints: gradcheck and generation by default, isolation and examples when named.";
  }

  @Override
  public String synopsis() {
    return "bench [gradcheck|generation|isolation|examples]...";
  }

  @Override
  public int operands() {
    return Integer.MAX_VALUE;
  }

  @Override
  public ExitCode run(Arguments args, Session s) throws Exception {
    Benchmarks b = new Benchmarks(s.out(), s.home().resolve("native-ops/target/lib"));
    Path specs = s.home().resolve("fixtures/specs");
    List<String> what = args.operands().isEmpty() ? List.of("gradcheck", "generation") : args.operands();
    for (String w : what) {
      switch (w) {
        case "gradcheck" -> b.gradcheck();
        case "generation" -> b.generation(specs);
        case "isolation" -> b.isolation(specs, 30, 400);
        case "examples" -> b.examples(specs, 200);
        default -> throw new UsageException("unknown benchmark '" + w
            + "'; expected gradcheck, generation, isolation or examples");
      }
    }
    return ExitCode.OK;
  }
}
