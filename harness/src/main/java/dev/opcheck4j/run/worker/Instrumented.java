package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.link.UnitMarks;
import dev.opcheck4j.torch.Instrumentation;
import java.nio.file.Path;
import java.util.List;

/**
 * The worker's side of libraries built with sanitizers or coverage: before each unit, its mark in the
 * worker's output ({@link UnitMarks}), where the parent asked for them.
 */
final class Instrumented {
  static final Instrumented NONE = new Instrumented(false);

  private final boolean marks;

  private Instrumented(boolean marks) {
    this.marks = marks;
  }

  /** What this worker does for {@code libraries}, as its JVM was started. */
  static Instrumented of(List<Path> libraries) {
    boolean marks = Boolean.getBoolean(UnitMarks.PROPERTY);
    return marks ? new Instrumented(true) : NONE;
  }

  /** Before unit {@code id} runs. */
  void before(long id) {
    if (marks) {
      System.err.println(UnitMarks.line(id));
      System.err.flush();
    }
  }
}
