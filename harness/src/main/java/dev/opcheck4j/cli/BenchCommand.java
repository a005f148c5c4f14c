package dev.opcheck4j.cli;

import static dev.opcheck4j.run.plan.RunOptions.BENCH_OPS;
import static dev.opcheck4j.run.plan.RunOptions.JOBS;
import static dev.opcheck4j.run.plan.RunOptions.TRIES;

import dev.opcheck4j.bench.Benchmarks;
import dev.opcheck4j.bench.SyntheticLibrary;
import dev.opcheck4j.run.plan.RunOption;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code bench}: measurements printed, never asserted (gradcheck, generation, isolation, examples, specs, codec,
 * library, shapes, crashes, shards, composites).
 */
final class BenchCommand implements Command {
  @Override
  public String name() {
    return "bench";
  }

  @Override
  public String summary() {
    return "Measures and prints: gradcheck and generation by default; isolation, examples, specs, codec, library, shapes,"
        + " crashes, shards and composites when named.";
  }

  @Override
  public String synopsis() {
    return "bench [gradcheck|generation|isolation|examples|specs|codec|library|shapes|crashes|shards|composites|sanitizers]... [--ops N] [--tries N]"
        + " [--jobs N]";
  }

  @Override
  public List<RunOption<?>> options() {
    return List.of(BENCH_OPS, TRIES, JOBS);
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
        case "specs" -> b.specs();
        case "codec" -> b.codec(specs, 20_000);
        case "sanitizers" -> b.sanitizers(s.home(), s.home().resolve("harness/target/bench-library/sanitizers-"
            + args.get(BENCH_OPS)), args.get(BENCH_OPS), args.get(TRIES), args.get(JOBS));
        case "library", "shapes", "crashes", "shards", "composites" -> {
          int ops = args.get(BENCH_OPS);
          Path dir = s.home().resolve("harness/target/bench-library/" + (w.equals("library") ? "ops" : w) + "-" + ops);
          try {
            if (w.equals("crashes")) {
              b.crashes(s.home(), dir, ops, args.get(TRIES), args.get(JOBS));
            } else if (w.equals("composites")) {
              b.composites(s.home(), dir, ops, args.get(TRIES), args.get(JOBS));
            } else {
              b.library(s.home(), dir, ops, args.get(TRIES), args.get(JOBS), switch (w) {
                case "library" -> SyntheticLibrary.Flavor.PLAIN;
                case "shapes" -> SyntheticLibrary.Flavor.SHAPES;
                default -> SyntheticLibrary.Flavor.SHARDS;
              });
            }
          } catch (SyntheticLibrary.BuildError e) {
            s.err().println("opcheck: bench " + w + ": " + e.getMessage());
            return ExitCode.INPUT_ERROR;
          }
        }
        default -> throw new UsageException("unknown benchmark '" + w
            + "'; expected gradcheck, generation, isolation, examples, specs, codec, library, shapes, crashes, shards or composites");
      }
    }
    return ExitCode.OK;
  }
}
