package dev.opcheck4j.run.supervisor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * LLVM's OpenMP runtime and Archer, its ThreadSanitizer tool, where the machine has them (Debian's
 * {@code libomp-dev}: {@code /usr/lib/llvm-N/lib}): the runtime implements libgomp's ABI ({@code GOMP_parallel},
 * {@code omp_get_num_threads}), so a preloaded copy runs libtorch's parallel regions, and Archer, loaded through
 * OpenMP's tool interface, annotates their fork, join and barriers for TSan. The newest LLVM's pair is taken.
 *
 * @param runtime {@code libomp.so.5}
 * @param archer {@code libarcher.so}
 */
record OpenMpTool(Path runtime, Path archer) {
  private static final Path LLVM = Path.of("/usr/lib");

  /** The pair this machine has, if any. */
  static Optional<OpenMpTool> installed() {
    try (Stream<Path> dirs = Files.list(LLVM)) {
      return dirs.filter(d -> d.getFileName().toString().matches("llvm-\\d+"))
          .sorted(Comparator.comparingInt((Path d) -> Integer.parseInt(d.getFileName().toString().substring(5))).reversed())
          .map(d -> new OpenMpTool(d.resolve("lib/libomp.so.5"), d.resolve("lib/libarcher.so")))
          .filter(t -> Files.isRegularFile(t.runtime()) && Files.isRegularFile(t.archer()))
          .findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
