package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunListener;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The results file: an end line for a run that finished, and merge telling a run that did not. */
class ResultsFileTests {
  private static final List<String> OPS = List.of("ns::a", "ns::b", "ns::c");

  private static CheckResult passed(String op) {
    return new CheckResult(op, "kernel.error", "cpu", CheckResult.NONE, Outcome.PASSED, List.of(), 1);
  }

  /** A run of OPS that finished the first {@code finished} ops, and ended when {@code ended}. */
  private static void run(Path dir, int finished, boolean ended) {
    try (ResultsFile file = ResultsFile.create(dir, "2.10.0", "1.5.13", Instant.EPOCH, List.of("kernel.error"), OPS, 3)) {
      for (int i = 0; i < finished; i++) {
        RunListener job = file.job(i);
        job.result(passed(OPS.get(i)));
        job.opFinished(new RunListener.OpEvent(OPS.get(i), "lib.so", null, Instant.EPOCH));
      }
      RunInfo run = RunInfo.minimal("2.10.0", "1.5.13", Instant.EPOCH, 5);
      file.runFinished(run, new RunListener.RunEnd(ended, List.of()));
    }
  }

  @Test
  void aFinishedRunEndsWithCountsAndItsExitStatus(@TempDir Path dir) throws IOException {
    run(dir, 3, true);
    List<String> lines = Files.readAllLines(dir.resolve(ResultsFile.NAME));
    assertEquals("[\"End\",{\"durationMs\":5,\"results\":3,\"outcomes\":{\"passed\":3},\"inputErrors\":0,\"exitStatus\":0}]",
        lines.get(lines.size() - 1));
    RunInfo.Completion c = ResultsFile.merge(List.of(dir)).report().run().completion();
    assertTrue(c.complete());
  }

  @Test
  void mergeNamesTheShardThatDidNotFinishAndItsMissingOps(@TempDir Path dir) throws IOException {
    run(dir.resolve("s1"), 3, true);
    run(dir.resolve("s2"), 1, false);
    RunOutcome merged = ResultsFile.merge(List.of(dir.resolve("s1"), dir.resolve("s2")));
    assertEquals(List.of(new RunInfo.Incomplete(dir.resolve("s2").toString(), List.of("ns::b", "ns::c"))),
        merged.report().run().completion().incomplete());
    assertEquals(4, merged.report().results().size(), "what the shard gathered is kept");
  }

  @Test
  void aDamagedLineIsALocatedError(@TempDir Path dir) throws IOException {
    run(dir, 3, true);
    Files.writeString(dir.resolve(ResultsFile.NAME), "[\"Result\",{\"job\":1,\"se\n", StandardCharsets.UTF_8,
        StandardOpenOption.APPEND);
    IOException e = assertThrows(IOException.class, () -> ResultsFile.merge(List.of(dir)));
    int lines = Files.readAllLines(dir.resolve(ResultsFile.NAME)).size();
    assertTrue(e.getMessage().startsWith(dir.resolve(ResultsFile.NAME) + ":" + lines + ": not a line of a results file"),
        e.getMessage());
  }

  @Test
  void everyLineIsWholeAndTheOutcomeCountsAreByLabel(@TempDir Path dir) throws IOException {
    try (ResultsFile file = ResultsFile.create(dir, "t", "p", Instant.EPOCH, List.of(), List.of("ns::a"), 3)) {
      RunListener job = file.job(0);
      job.result(passed("ns::a"));
      job.result(new CheckResult("ns::a", "kernel.error", "cpu", CheckResult.NONE, Outcome.SKIPPED, List.of(), 1));
      file.runFinished(RunInfo.minimal("t", "p", Instant.EPOCH, 1), new RunListener.RunEnd(true, List.of("bad input")));
    }
    String text = Files.readString(dir.resolve(ResultsFile.NAME));
    assertTrue(text.endsWith("\n"));
    assertTrue(text.contains("[\"InputError\",{\"text\":\"bad input\"}]"), text);
    assertTrue(text.contains("\"outcomes\":{\"passed\":1,\"skipped\":1},\"inputErrors\":1,\"exitStatus\":2"), text);
  }
}
