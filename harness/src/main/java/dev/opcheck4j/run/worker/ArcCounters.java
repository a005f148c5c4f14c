package dev.opcheck4j.run.worker;

import dev.opcheck4j.torch.Instrumentation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import jdk.incubator.foreign.MemoryAccess;
import jdk.incubator.foreign.MemoryAddress;
import jdk.incubator.foreign.MemorySegment;
import jdk.incubator.foreign.ResourceScope;

/**
 * gcov's arc counters of the worker's libraries built with {@code --coverage}, read in memory (issue 54): which
 * arcs a kernel call reached that no call of this worker had reached before, cheaply after each generated try,
 * with no dump and no gcov. Each function's counters are the array {@code __gcov0.FUNCTION} of its library's full
 * symbol table (as {@link GcovDumps} finds gcov's own functions there); an arc is numbered by its place among the
 * counters of every library, in the order of the libraries and of the arrays' names, the same in every worker of a
 * run. A library without coverage has no counters, and then nothing is ever new.
 */
final class ArcCounters {
  private final List<MemorySegment> arrays;
  private final BitSet reached = new BitSet();

  private ArcCounters(List<MemorySegment> arrays) {
    this.arrays = arrays;
  }

  /** The counters of {@code libraries} that were built with coverage, as this process loaded them. */
  static ArcCounters of(List<Path> libraries) {
    List<MemorySegment> arrays = new ArrayList<>();
    for (Path library : libraries) {
      List<Instrumentation.GcovCounters> counters = Instrumentation.of(library).gcovCounters();
      Optional<Long> base = counters.isEmpty() ? Optional.empty() : GcovDumps.loadedAt(library);
      base.ifPresent(b -> counters.forEach(c -> arrays.add(MemoryAddress.ofLong(b + c.at())
          .asSegment(c.count() * 8, ResourceScope.globalScope()))));
    }
    return new ArcCounters(arrays);
  }

  /** Whether any library has counters. */
  boolean any() {
    return !arrays.isEmpty();
  }

  /** The arcs reached since the last call (by anything this worker ran) and never before, by number, ascending. */
  List<Integer> fresh() {
    List<Integer> out = new ArrayList<>();
    int n = 0;
    for (MemorySegment a : arrays) {
      long count = a.byteSize() / 8;
      for (long i = 0; i < count; i++, n++) {
        if (!reached.get(n) && MemoryAccess.getLongAtIndex(a, i) != 0) {
          reached.set(n);
          out.add(n);
        }
      }
    }
    return out;
  }
}
