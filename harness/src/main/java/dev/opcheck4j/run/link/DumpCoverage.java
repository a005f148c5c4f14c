package dev.opcheck4j.run.link;

import java.nio.file.Path;

/**
 * A unit that writes the gcov counts of the worker's libraries built with coverage into {@code dir} (as
 * {@code GCOV_PREFIX} places them: {@code dir/<the object file's own path>.gcda}), each counting from the
 * worker's start. A file of its own: {@link Protocol} holds the other units.
 */
public record DumpCoverage(Path dir) implements Protocol.Unit<Answers.CoverageDumped> {
  @Override
  public Class<Answers.CoverageDumped> answers() {
    return Answers.CoverageDumped.class;
  }

  @Override
  public Answers.CoverageDumped failed(String error) {
    return new Answers.CoverageDumped(-1, error);
  }
}
