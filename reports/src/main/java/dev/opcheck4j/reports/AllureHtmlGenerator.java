package dev.opcheck4j.reports;

import dev.opcheck4j.api.ReportGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code ./opcheck report allure DIR}: Allure's own command line ({@code io.qameta.allure:allure-commandline},
 * unpacked by the reports module's build into {@code reports/target/allure-commandline/}) turns
 * {@code DIR/allure-results} — from a CLI run with {@code --report-dir DIR}, or a consumer's
 * {@code mvn test} ({@code DIR = target}) — into {@code DIR/allure-report/index.html}, a single file
 * that opens from {@code file://} and as a CI artifact.
 */
public final class AllureHtmlGenerator implements ReportGenerator {
  static final String UNPACKED = "reports/target/allure-commandline";

  @Override
  public String name() {
    return "allure";
  }

  @Override
  public Path generate(Path dir, Path home) throws IOException, InterruptedException {
    Path results = dir.resolve(AllureResultsFormat.DIR);
    if (!Files.isDirectory(results)) {
      if (isResults(dir)) {
        results = dir;
        dir = dir.toAbsolutePath().getParent();
      } else {
        throw new IllegalArgumentException(results + " not found: write it with './opcheck check ... --report-dir "
            + dir + " --allure' (or './opcheck demo' for reports/out), or give the folder holding a test run's allure-results");
      }
    }
    Path allure = binary(home).orElseThrow(() -> new IllegalArgumentException("Allure's command line is not in "
        + home.resolve(UNPACKED) + ": build it with 'mvn -B -q install -DskipTests' (the reports module unpacks it)"));
    Path out = dir.resolve("allure-report");
    Path log = Files.createTempFile("opcheck-allure", ".log");
    ProcessBuilder pb = new ProcessBuilder(allure.toString(), "generate", results.toString(), "-o", out.toString(),
        "--clean", "--single-file").redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process p = pb.start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IOException("allure generate did not finish in 10 minutes; its output is in " + log);
    }
    String output = Files.readString(log);
    Files.deleteIfExists(log);
    Path index = out.resolve("index.html");
    if (p.exitValue() != 0 || !Files.isRegularFile(index)) {
      throw new IOException("allure generate exited " + p.exitValue() + ": " + output.strip());
    }
    return index;
  }

  private static boolean isResults(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.anyMatch(f -> f.getFileName().toString().endsWith("-result.json"));
    }
  }

  /** {@code allure-<version>/bin/allure} under the unpacked command line, if the build put it there. */
  static Optional<Path> binary(Path home) throws IOException {
    Path unpacked = home.resolve(UNPACKED);
    if (!Files.isDirectory(unpacked)) {
      return Optional.empty();
    }
    try (Stream<Path> dirs = Files.list(unpacked)) {
      List<Path> found = dirs.map(d -> d.resolve("bin/allure")).filter(Files::isRegularFile).sorted().toList();
      if (found.isEmpty()) {
        return Optional.empty();
      }
      Path bin = found.get(found.size() - 1);
      bin.toFile().setExecutable(true);
      return Optional.of(bin);
    }
  }
}
