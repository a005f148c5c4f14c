package dev.opcheck4j.run.plan;

import dev.opcheck4j.spec.SpecReader;
import java.nio.file.Path;

/**
 * One library a {@link RunRequest} checks.
 *
 * @param spec a spec file (its ops, examples and settings), or null for every op the library registers
 * @param library the library; null to take the one the spec names
 * @param read the spec as its entry point read it (once: the run reads it no more), or null when the run is
 *     to read it
 */
public record RunTarget(Path spec, Path library, SpecReader.Parsed read) {
  public RunTarget {
    if (spec == null && library == null) {
      throw new IllegalArgumentException("a target needs a spec file or a library");
    }
    if (read != null && spec == null) {
      throw new IllegalArgumentException("a spec read needs its spec file");
    }
  }

  /** A target whose spec, if any, the run reads. */
  public RunTarget(Path spec, Path library) {
    this(spec, library, null);
  }

  /** How the command line names it, for rerun lines: {@code --spec FILE} or {@code --library LIB}. */
  public String source() {
    return spec != null ? "--spec " + spec : "--library " + library;
  }
}
