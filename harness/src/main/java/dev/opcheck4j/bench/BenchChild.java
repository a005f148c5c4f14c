package dev.opcheck4j.bench;

import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.plan.Isolation;
import dev.opcheck4j.run.plan.RunRequest;
import java.nio.file.Path;

/**
 * A measurement of {@code ./opcheck bench} in a JVM of its own, so each one starts cold and with
 * the JVM options it is about. {@code run MODE TRIES JOBS SPEC...} checks the specs (MODE
 * {@code in-process} or {@code workers}) and prints {@code seconds S}; {@code examples SPECS_DIR}
 * prints the {@code bench examples} lines.
 */
public final class BenchChild {
  private BenchChild() {}

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "run" -> {
        RunRequest.Builder r = RunRequest.builder()
            .isolation(args[1].equals("in-process") ? Isolation.IN_PROCESS : Isolation.WORKERS)
            .tries(Integer.parseInt(args[2])).jobs(Integer.parseInt(args[3])).seed(1L);
        for (int i = 4; i < args.length; i++) {
          r.spec(Path.of(args[i]));
        }
        long t0 = System.nanoTime();
        Launcher.execute(r.build(), dev.opcheck4j.api.RunListener.NONE);
        System.out.printf("seconds %.3f%n", (System.nanoTime() - t0) / 1e9);
      }
      case "examples" -> new Benchmarks(System.out, null).examplesHere(Path.of(args[1]), Integer.parseInt(args[2]));
      default -> throw new IllegalArgumentException("unknown measurement " + args[0]);
    }
    System.out.flush();
    System.exit(0);
  }
}
