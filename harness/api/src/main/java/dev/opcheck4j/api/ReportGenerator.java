package dev.opcheck4j.api;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Turns what an earlier run wrote into another form ({@code ./opcheck report NAME DIR}), e.g. Allure
 * results into Allure's HTML report. Implementations are found with {@link java.util.ServiceLoader}.
 */
public interface ReportGenerator {
  /** Short lower-case name used on the command line, e.g. {@code allure}. */
  String name();

  /**
   * Generates the report from what {@code dir} holds and returns what it wrote.
   *
   * @param home the opcheck4j installation (where the build put its tools)
   * @throws IllegalArgumentException when {@code dir} does not hold what the generator needs (the
   *     message says what is missing and how to make it)
   */
  Path generate(Path dir, Path home) throws IOException, InterruptedException;
}
