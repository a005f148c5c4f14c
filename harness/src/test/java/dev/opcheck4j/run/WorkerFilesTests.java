package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.testing.NativeOps;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker's answer log ({@code worker-N.answers}, 4 MiB) and step file ({@code worker-N.step}) are
 * the parent's and the worker's only while they run: a parent killed with SIGKILL leaves neither in
 * the report dir, and a run into a dir deletes those an earlier run left.
 */
class WorkerFilesTests {

  private static List<String> workerFiles(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("worker-") && (n.endsWith(".answers") || n.endsWith(".step"))).sorted().toList();
    }
  }

  @Test
  void aRunIntoADirDeletesTheAnswerLogsAndStepFilesAnEarlierRunLeft(@TempDir Path dir) throws Exception {
    Files.write(dir.resolve("worker-3.answers"), new byte[4096]);
    Files.write(dir.resolve("worker-12.step"), new byte[1024]);
    Files.writeString(dir.resolve("worker-3.log"), "an earlier run's log\n");
    Files.writeString(dir.resolve("worker-notes.txt"), "not a worker's file\n");
    RunRequest request = RunRequest.builder().seed(7L).tries(2).jobs(1).spec(NativeOps.spec("good_ops.json"))
        .ops(List.of("good_ops::add_scalar")).reportDir(dir).build();
    Launcher.execute(request, RunListener.NONE);
    assertEquals(List.of(), workerFiles(dir));
    assertTrue(Files.exists(dir.resolve("worker-3.log")), "logs are evidence, not stale state");
    assertTrue(Files.exists(dir.resolve("worker-notes.txt")));
  }

  @Test
  void aParentKilledWithSigkillLeavesNoAnswerLogOrStepFile(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("out");
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), "dev.opcheck4j.cli.Main", "check", "--spec",
        NativeOps.spec("good_ops.json").toString(), "--tries", "30", "--jobs", "1", "--seed", "7", "--report-dir",
        out.toString()));
    Process run = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    StringBuilder seen = new StringBuilder();
    try (java.io.BufferedReader lines = new java.io.BufferedReader(
        new java.io.InputStreamReader(run.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
      // the first op's line ("[1/N] good_ops::...") is printed as it finishes: the worker is then on the
      // next op, with its files mapped by it and by the parent. A read blocks; no clock decides anything
      String line;
      while ((line = lines.readLine()) != null && !line.matches("\\[1/\\d+\\] .*")) {
        seen.append(line).append('\n');
      }
      assertTrue(line != null && run.isAlive(), "the run is still going when it is killed: " + seen);
      run.destroyForcibly(); // SIGKILL: no shutdown hook runs
      run.waitFor();
    } finally {
      run.destroyForcibly();
    }
    assertTrue(Files.exists(out.resolve("worker-1.log")), "a worker ran");
    assertEquals(List.of(), workerFiles(out));
  }
}
