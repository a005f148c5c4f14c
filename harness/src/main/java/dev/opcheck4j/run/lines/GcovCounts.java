package dev.opcheck4j.run.lines;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The counts of one gcov dump (a directory of {@code .gcda} files a worker wrote), per source line and function,
 * as gcov itself reads them ({@code gcov --json-format}): each {@code .gcda} beside the {@code .gcno} its
 * compile left next to the object file, whose path the dump repeats under the directory.
 *
 * @param lines each line holding code, by file and number
 * @param functions each function, by its mangled name and file
 */
record GcovCounts(Map<Line, Count> lines, Map<Line, Function> functions) {
  /** A line of a file (for a function: its first line, and its mangled name in {@code function}). */
  record Line(String file, int number, String function) {}

  /** What ran on a line: how often, in which function, and its branches' counts. */
  record Count(long count, String function, List<Long> branches) {}

  /** A function: its demangled name, its lines, how often it was entered. */
  record Function(String name, String file, int first, int last, long entered) {}

  static final GcovCounts NONE = new GcovCounts(Map.of(), Map.of());

  /** The counts under {@code dir}, read with {@code gcov}; what could not be read is said in the exception. */
  static GcovCounts read(Path dir) throws IOException {
    Map<Line, Count> lines = new HashMap<>();
    Map<Line, Function> functions = new HashMap<>();
    List<Path> dumps;
    try (Stream<Path> walk = Files.walk(dir)) {
      dumps = walk.filter(p -> p.getFileName().toString().endsWith(".gcda")).toList();
    }
    for (Path gcda : dumps) {
      Path notes = Path.of("/").resolve(dir.relativize(gcda)).resolveSibling(
          gcda.getFileName().toString().replaceFirst("\\.gcda$", ".gcno"));
      if (!Files.isRegularFile(notes)) {
        throw new IOException("no " + notes + " beside the object file of " + gcda.getFileName()
            + ": gcov needs the notes its compile wrote");
      }
      Files.copy(notes, gcda.resolveSibling(notes.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      JsonNode root = gcov(gcda);
      Path cwd = Path.of(root.path("current_working_directory").asText("/"));
      for (JsonNode file : root.path("files")) {
        String name = cwd.resolve(file.path("file").asText()).normalize().toString();
        for (JsonNode f : file.path("functions")) {
          functions.put(new Line(name, f.path("start_line").asInt(), f.path("name").asText()), new Function(
              f.path("demangled_name").asText(f.path("name").asText()), name, f.path("start_line").asInt(),
              f.path("end_line").asInt(), f.path("execution_count").asLong()));
        }
        for (JsonNode l : file.path("lines")) {
          List<Long> branches = new ArrayList<>();
          // a branch to an exception handler is no branch of the kernel's logic: left out, as gcovr does by choice
          l.path("branches").forEach(b -> {
            if (!b.path("throw").asBoolean(false)) {
              branches.add(b.path("count").asLong());
            }
          });
          // a line of several functions (a template's instances, a lambda inside its function) adds up
          lines.merge(new Line(name, l.path("line_number").asInt(), null), new Count(l.path("count").asLong(),
              l.path("function_name").asText(), branches), GcovCounts::sum);
        }
      }
    }
    return new GcovCounts(lines, functions);
  }

  private static Count sum(Count a, Count b) {
    List<Long> branches = new ArrayList<>(a.branches());
    branches.addAll(b.branches());
    return new Count(a.count() + b.count(), a.function(), branches);
  }

  /** gcov's JSON of {@code gcda}, its notes beside it. */
  private static JsonNode gcov(Path gcda) throws IOException {
    Process p = new ProcessBuilder("gcov", "--json-format", "--stdout", "--branch-probabilities",
        gcda.getFileName().toString()).directory(gcda.getParent().toFile()).redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    byte[] out = p.getInputStream().readAllBytes();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IOException("gcov failed on " + gcda + " (exit " + (p.isAlive() ? "none" : p.exitValue()) + ")");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    return new ObjectMapper().readTree(out);
  }

  /** What ran between {@code before} and this dump of the same worker: each count less the one before. */
  GcovCounts since(GcovCounts before) {
    Map<Line, Count> delta = new HashMap<>();
    lines.forEach((k, c) -> {
      Count b = before.lines.get(k);
      List<Long> branches = new ArrayList<>();
      for (int i = 0; i < c.branches().size(); i++) {
        branches.add(c.branches().get(i) - (b != null && i < b.branches().size() ? b.branches().get(i) : 0));
      }
      delta.put(k, new Count(c.count() - (b == null ? 0 : b.count()), c.function(), branches));
    });
    Map<Line, Function> entered = new HashMap<>();
    functions.forEach((k, f) -> {
      Function b = before.functions.get(k);
      entered.put(k, new Function(f.name(), f.file(), f.first(), f.last(), f.entered() - (b == null ? 0 : b.entered())));
    });
    return new GcovCounts(delta, entered);
  }
}
