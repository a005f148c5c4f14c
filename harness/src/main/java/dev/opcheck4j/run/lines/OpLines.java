package dev.opcheck4j.run.lines;

import dev.opcheck4j.api.KernelLines;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One op's {@link KernelLines} from the counts of its two phases: the functions of the library's own sources
 * that either phase entered (not the C++ library's, nor libtorch's headers), each line of them run by the
 * examples, only by the generated inputs, or never; a function inside another one shown (a lambda) is shown
 * within it.
 */
final class OpLines {
  private OpLines() {}

  static KernelLines of(String op, String library, GcovCounts examples, GcovCounts generated, String note) {
    List<GcovCounts.Function> entered = new ArrayList<>();
    Map<GcovCounts.Line, GcovCounts.Function> all = new HashMap<>(examples.functions());
    generated.functions().forEach(all::putIfAbsent);
    for (Map.Entry<GcovCounts.Line, GcovCounts.Function> f : all.entrySet()) {
      GcovCounts.Function e = examples.functions().get(f.getKey());
      GcovCounts.Function g = generated.functions().get(f.getKey());
      if (own(f.getValue().file()) && (e != null && e.entered() > 0 || g != null && g.entered() > 0)) {
        entered.add(f.getValue());
      }
    }
    entered.sort(Comparator.comparing(GcovCounts.Function::file).thenComparingInt(GcovCounts.Function::first)
        .thenComparing(Comparator.comparingInt(GcovCounts.Function::last).reversed()));
    List<KernelLines.Function> shown = new ArrayList<>();
    int[] tally = new int[6]; // lines, run by examples, run in all, branches, taken by examples, taken in all
    Map<String, List<String>> sources = new HashMap<>();
    GcovCounts.Function outer = null;
    for (GcovCounts.Function f : entered) {
      if (outer != null && outer.file().equals(f.file()) && f.first() >= outer.first() && f.last() <= outer.last()) {
        continue; // inside the one shown (a lambda, a template's other instance on the same lines)
      }
      outer = f;
      List<String> text = sources.computeIfAbsent(f.file(), OpLines::read);
      List<KernelLines.Line> lines = new ArrayList<>();
      for (int n = f.first(); n <= f.last(); n++) {
        GcovCounts.Line at = new GcovCounts.Line(f.file(), n, null);
        GcovCounts.Count e = examples.lines().get(at);
        GcovCounts.Count g = generated.lines().get(at);
        KernelLines.Run run;
        if (e == null && g == null) {
          run = KernelLines.Run.NO_CODE;
        } else {
          long byExamples = e == null ? 0 : e.count();
          long byAll = byExamples + (g == null ? 0 : g.count());
          run = byExamples > 0 ? KernelLines.Run.EXAMPLES : byAll > 0 ? KernelLines.Run.GENERATED : KernelLines.Run.NEVER;
          tally[0]++;
          tally[1] += byExamples > 0 ? 1 : 0;
          tally[2] += byAll > 0 ? 1 : 0;
          int branches = Math.max(e == null ? 0 : e.branches().size(), g == null ? 0 : g.branches().size());
          for (int b = 0; b < branches; b++) {
            long be = e != null && b < e.branches().size() ? e.branches().get(b) : 0;
            long bg = g != null && b < g.branches().size() ? g.branches().get(b) : 0;
            tally[3]++;
            tally[4] += be > 0 ? 1 : 0;
            tally[5] += be + bg > 0 ? 1 : 0;
          }
        }
        lines.add(new KernelLines.Line(n, n - 1 < text.size() ? text.get(n - 1) : "", run));
      }
      shown.add(new KernelLines.Function(f.name(), f.file(), lines));
    }
    return new KernelLines(op, library, new KernelLines.Tally(tally[0], tally[1], tally[3], tally[4]),
        new KernelLines.Tally(tally[0], tally[2], tally[3], tally[5]), shown, note);
  }

  /** Whether {@code file} is the library's own source: not a system header, nor libtorch's. */
  static boolean own(String file) {
    return !file.startsWith("/usr/") && !file.contains("/torch/include/") && !file.contains("/include/torch/")
        && !file.contains("/include/ATen/") && !file.contains("/include/c10/");
  }

  private static List<String> read(String file) {
    try {
      return Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }
}
