package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.testing.NativeOps;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
    Process run = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("run.out").toFile())
        .start();
    try {
      Path results = out.resolve("opcheck-results.jsonl");
      long until = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      while (System.nanoTime() < until && run.isAlive() && !(Files.exists(results)
          && Files.readAllLines(results).stream().filter(l -> l.startsWith("[\"Result\"")).count() >= 20)) {
        Thread.sleep(100);
      }
      assertTrue(run.isAlive(), "the run is still going when it is killed: " + Files.readString(dir.resolve("run.out")));
      // the worker is mid-run: its files are mapped by it and by the parent
      run.destroyForcibly(); // SIGKILL: no shutdown hook runs
      assertTrue(run.waitFor(60, TimeUnit.SECONDS));
    } finally {
      run.destroyForcibly();
    }
    assertTrue(Files.exists(out.resolve("worker-1.log")), "a worker ran");
    assertEquals(List.of(), workerFiles(out));
  }
}
