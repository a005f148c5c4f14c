package dev.opcheck4j.run.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AnswerLogTests {
  private static byte[] line(String s) {
    return (s + "\n").getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void theParentReadsTheAnswersOfTheExchangeInFlightAndTheUnitRunning(@TempDir Path dir) throws Exception {
    Path file = AnswerLog.beside(dir.resolve("worker-3.log"));
    assertEquals(dir.resolve("worker-3.answers"), file);
    AnswerLog worker = AnswerLog.create(file);
    AnswerLog parent = AnswerLog.open(file).orElseThrow();
    assertEquals(-1, parent.running());
    worker.exchange(40);
    worker.running(40);
    assertTrue(worker.keep(line("first")));
    worker.running(41);
    assertTrue(worker.keep(line("second, with ünïcode")));
    worker.running(42);
    assertEquals(42, parent.running(), "the unit in flight, as a worker killed now left it");
    assertEquals(List.of("first", "second, with ünïcode"), parent.lines(40));
    assertEquals(List.of(), parent.lines(7), "answers of another exchange are never taken for this one's");
    // the next exchange starts empty
    worker.exchange(43);
    assertEquals(List.of(), parent.lines(43));
  }

  /**
   * Where the unit running started in the worker's log: a crash's root cause is read from there, never from
   * what an earlier unit of the exchange printed (issue 52).
   */
  @Test
  void theParentReadsWhereInTheWorkersLogTheUnitRunningStarted(@TempDir Path dir) throws Exception {
    AnswerLog worker = AnswerLog.create(dir.resolve("worker-1.answers"));
    AnswerLog parent = AnswerLog.open(dir.resolve("worker-1.answers")).orElseThrow();
    assertEquals(-1, parent.outputAtStart(), "no unit runs");
    worker.exchange(10);
    worker.running(10, 300);
    worker.running(11, 4_096);
    assertEquals(4_096, parent.outputAtStart(), "the unit in flight's, not its exchange's first");
    worker.running(-1);
    assertEquals(-1, parent.outputAtStart(), "between units none is known");
  }

  @Test
  void anAnswerThatDoesNotFitIsRefusedSoTheWorkerSendsItAtOnce(@TempDir Path dir) throws Exception {
    AnswerLog worker = AnswerLog.create(dir.resolve("worker-1.answers"));
    worker.exchange(0);
    assertFalse(worker.keep(new byte[AnswerLog.SIZE]));
    assertTrue(worker.keep(line("small")));
    assertEquals(List.of("small"), AnswerLog.open(dir.resolve("worker-1.answers")).orElseThrow().lines(0));
  }

  @Test
  void noLogBeforeTheWorkerMadeOne(@TempDir Path dir) {
    assertTrue(AnswerLog.open(dir.resolve("worker-9.answers")).isEmpty());
  }
}
