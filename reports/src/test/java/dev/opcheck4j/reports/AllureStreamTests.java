package dev.opcheck4j.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.RunReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Allure's files written as a run's results arrive are those a write at its end gives. */
class AllureStreamTests {

  @Test
  void filesWrittenAsResultsArriveAreThoseOfAWholeWrite(@TempDir Path dir) throws IOException {
    RunReport report = StubRun.report();
    Path whole = dir.resolve("whole");
    new AllureResultsFormat().write(report, whole);
    Path streamed = dir.resolve("streamed");
    Files.createDirectories(streamed.resolve(AllureResultsFormat.DIR));
    Files.writeString(streamed.resolve(AllureResultsFormat.DIR).resolve("old-run-result.json"), "{}");
    AllureResultsFormat format = new AllureResultsFormat();
    ReportFormat.Streaming stream = format.stream(streamed, report.checks(), r -> r);
    stream.runStarted(report.run());
    // the run gives its results half by half: the stream hears the first half, the write does the rest
    int half = report.results().size() / 2;
    report.results().subList(0, half).forEach(stream::result);
    format.write(report, streamed);
    assertEquals(files(whole), files(streamed), "the same files, byte for byte (the earlier run's gone)");
  }

  @Test
  void aReportOfAnotherRunIsWrittenWhole(@TempDir Path dir) throws IOException {
    RunReport report = StubRun.report();
    Path whole = dir.resolve("whole");
    new AllureResultsFormat().write(report, whole);
    AllureResultsFormat format = new AllureResultsFormat();
    ReportFormat.Streaming stream = format.stream(dir.resolve("streamed"), report.checks(), r -> r);
    stream.runStarted(report.run());
    // the stream heard the results changed (a rerun mark the report does not have): none of its files is kept
    report.results().forEach(r -> stream.result(r.withRerun(dev.opcheck4j.api.Rerun.CLI)));
    format.write(report, dir.resolve("streamed"));
    assertEquals(files(whole), files(dir.resolve("streamed")));
  }

  @Test
  void anAbandonedStreamLeavesNoFileOfItsRun(@TempDir Path dir) throws IOException {
    RunReport report = StubRun.report();
    ReportFormat.Streaming stream = new AllureResultsFormat().stream(dir, report.checks(), r -> r);
    stream.runStarted(report.run());
    report.results().forEach(stream::result);
    stream.abandon();
    try (var left = Files.list(dir.resolve(AllureResultsFormat.DIR))) {
      assertFalse(left.findAny().isPresent(), "no result file stays");
    }
  }

  /** The stream writes on threads of its own: the test waits for the file system to say a result file came. */
  @Test
  void resultsAreWrittenBeforeTheRunEnds(@TempDir Path dir) throws Exception {
    RunReport report = StubRun.report();
    ReportFormat.Streaming stream = new AllureResultsFormat().stream(dir, report.checks(), r -> r);
    stream.runStarted(report.run());
    Path results = dir.resolve(AllureResultsFormat.DIR);
    try (java.nio.file.WatchService watch = results.getFileSystem().newWatchService()) {
      results.register(watch, java.nio.file.StandardWatchEventKinds.ENTRY_CREATE);
      stream.result(report.results().get(0));
      // no end of the run is told: a file that comes was written during it
      boolean written = false;
      while (!written) {
        java.nio.file.WatchKey key = watch.take();
        written = key.pollEvents().stream().anyMatch(e -> e.context().toString().endsWith("-result.json"));
        key.reset();
      }
    }
    assertTrue(Files.list(results).anyMatch(p -> p.toString().endsWith("-result.json")), "written during the run");
    stream.abandon();
  }

  @Test
  void aReRunIntoTheSameFolderWritesOverTheSameFilesAndLeavesNothingOfTheOldOnes(@TempDir Path dir) throws IOException {
    RunReport report = StubRun.report();
    new AllureResultsFormat().write(report, dir);
    Map<String, Object> inodes = inodes(dir);
    // the same inputs again, later, with its results in another order: each file gets a result of
    // another length (longer and shorter than what was there)
    List<CheckResult> reversed = new java.util.ArrayList<>(report.results());
    java.util.Collections.reverse(reversed);
    RunReport again = new RunReport(report.run().withDuration(report.run().durationMs() + 1), report.checks(), reversed);
    new AllureResultsFormat().write(again, dir);
    assertEquals(inodes, inodes(dir), "the same names, written over in place");
    Path fresh = dir.resolve("fresh");
    new AllureResultsFormat().write(again, fresh);
    assertEquals(files(fresh), files(dir), "byte for byte what a write into an empty folder gives");
  }

  private static Map<String, Object> inodes(Path dir) throws IOException {
    Map<String, Object> out = new TreeMap<>();
    try (var all = Files.list(dir.resolve(AllureResultsFormat.DIR))) {
      for (Path p : all.filter(p -> p.toString().endsWith("-result.json")).toList()) {
        out.put(p.getFileName().toString(), Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class).fileKey());
      }
    }
    return out;
  }

  private static Map<String, String> files(Path dir) throws IOException {
    Map<String, String> out = new TreeMap<>();
    Path results = dir.resolve(AllureResultsFormat.DIR);
    if (!Files.isDirectory(results)) {
      return out;
    }
    try (var all = Files.list(results)) {
      for (Path p : all.toList()) {
        out.put(p.getFileName().toString(), Files.readString(p));
      }
    }
    return out;
  }

}
