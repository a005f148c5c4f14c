package dev.opcheck4j.cli;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.run.ResultsFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The results of the shards of a run on several runtimes ({@code check --runtime 2.10.0,2.13.0 --shard I/N}),
 * in the order the unsharded run gives them: each runtime's own results in plan order, oldest runtime first
 * (read from each shard's {@code runtime-<version>/} results file, whose lines keep their plan positions),
 * then the skips of a library a runtime refused, then runtime.agree's comparisons, each in the plan order of
 * its op. A shard's report holds all three, in that order, for its ops alone, so its results cannot simply be
 * appended to the next shard's.
 */
final class RuntimeShards {
  private static final String PREFIX = "runtime-";

  private RuntimeShards() {}

  /** The runtimes whose results files the shard dirs {@code dirs} hold, oldest first; empty for a run on one. */
  static List<String> of(List<Path> dirs) throws IOException {
    Set<String> versions = new TreeSet<>(VERSIONS);
    for (Path dir : dirs) {
      if (!Files.isDirectory(dir)) {
        continue;
      }
      try (Stream<Path> children = Files.list(dir)) {
        children.filter(c -> c.getFileName().toString().startsWith(PREFIX) && Files.isRegularFile(c.resolve(ResultsFile.NAME)))
            .forEach(c -> versions.add(c.getFileName().toString().substring(PREFIX.length())));
      }
    }
    return List.copyOf(versions);
  }

  /**
   * The shards' results in the unsharded run's order. Each shard's report begins with its own results (those
   * of its results files, one per runtime) and ends with those the run joined: the skips of a refused library,
   * then runtime.agree's comparisons.
   *
   * @param runtimes the run's runtimes, oldest first ({@link #of})
   * @param reported each shard's report's results, in the order of {@code dirs}
   */
  static List<CheckResult> ordered(List<Path> dirs, List<String> runtimes, List<List<CheckResult>> reported)
      throws IOException {
    List<CheckResult> own = new ArrayList<>();
    for (String version : runtimes) {
      List<Path> files = dirs.stream().map(d -> d.resolve(PREFIX + version))
          .filter(d -> Files.isRegularFile(d.resolve(ResultsFile.NAME))).toList();
      ResultsFile.merge(files).report().results().forEach(r -> own.add(r.onRuntime(version)));
    }
    List<CheckResult> joined = new ArrayList<>();
    for (int i = 0; i < dirs.size(); i++) {
      int mine = 0;
      for (String version : runtimes) {
        Path sub = dirs.get(i).resolve(PREFIX + version);
        if (Files.isRegularFile(sub.resolve(ResultsFile.NAME))) {
          mine += ResultsFile.merge(List.of(sub)).report().results().size();
        }
      }
      List<CheckResult> shard = reported.get(i);
      joined.addAll(shard.subList(Math.min(mine, shard.size()), shard.size()));
    }
    // where each op (or library, by its file name as a report names it) first has a result of its own, and
    // which checks it has: a refused library's skip repeats one, a comparison of runtimes none
    Map<String, Integer> position = new HashMap<>();
    Set<String> checked = new HashSet<>();
    for (CheckResult r : own) {
      for (String name : r.library() == null ? List.of(r.op()) : List.of(r.op(), r.library())) {
        position.putIfAbsent(name, position.size());
        checked.add(name + "\u0000" + r.check());
      }
    }
    Comparator<CheckResult> order = Comparator.<CheckResult>comparingInt(r -> checked.contains(r.op() + "\u0000" + r.check()) ? 0 : 1)
        .thenComparingInt(r -> checked.contains(r.op() + "\u0000" + r.check()) ? runtimes.indexOf(r.runtime()) : 0)
        .thenComparingInt(r -> position.getOrDefault(r.op(), Integer.MAX_VALUE));
    List<CheckResult> all = new ArrayList<>(own);
    joined.stream().sorted(order).forEach(all::add); // stable: within an op, as its shard gave them
    return all;
  }

  /** Versions by their numbers ({@code 2.9.0} before {@code 2.10.0}). */
  private static final Comparator<String> VERSIONS = (a, b) -> {
    String[] x = a.split("\\.");
    String[] y = b.split("\\.");
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      int c = x[i].matches("\\d+") && y[i].matches("\\d+") ? Integer.compare(Integer.parseInt(x[i]), Integer.parseInt(y[i]))
          : x[i].compareTo(y[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(x.length, y.length);
  };
}
