package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.link.UnitMarks;
import dev.opcheck4j.torch.Instrumentation;
import java.nio.file.Path;
import java.util.List;

/**
 * The worker's side of libraries built with sanitizers: before each unit, its mark in the worker's output
 * ({@link UnitMarks}), where the parent asked for them, and UBSan's source locations armed again
 * ({@link UbsanLocations}), so that every occurrence of a defect is reported, in this worker too.
 */
final class Instrumented {
  static final Instrumented NONE = new Instrumented(false, UbsanLocations.NONE);

  private final boolean marks;
  private final UbsanLocations ubsan;

  private Instrumented(boolean marks, UbsanLocations ubsan) {
    this.marks = marks;
    this.ubsan = ubsan;
  }

  /** What this worker does for {@code libraries} (loaded), as its JVM was started. */
  static Instrumented of(List<Path> libraries) {
    if (!Boolean.getBoolean(UnitMarks.PROPERTY)) {
      return NONE;
    }
    List<Path> ubsan = libraries.stream()
        .filter(l -> Instrumentation.of(l).sanitizers().containsKey(Instrumentation.Sanitizer.UNDEFINED)).toList();
    return new Instrumented(true, ubsan.isEmpty() ? UbsanLocations.NONE : UbsanLocations.of(ubsan));
  }

  /** Before unit {@code id} runs. */
  void before(long id) {
    if (marks) {
      ubsan.rearm();
      System.err.println(UnitMarks.line(id));
      System.err.flush();
    }
  }
}
