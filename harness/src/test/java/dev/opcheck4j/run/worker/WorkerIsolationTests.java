package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.session.CrashWitness;
import dev.opcheck4j.run.ResultsFile;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.plan.RunRequest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.Rerun;
import dev.opcheck4j.testing.NativeOps;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kernels that crash, abort, hang, exit or flood their output, checked in one run with good ops
 * (two workers): each crash op gives exactly the finding its {@code // EXPECT:} marker names, every
 * good op keeps every result it has without them, and nothing is left behind but the report dir.
 */
class WorkerIsolationTests {
  static final Path CRASH_SPEC = NativeOps.spec("crash/crash_ops.json");

  private static Path reportDir;
  private static Set<Path> errorFilesBefore;
  private static RunOutcome mixed;
  private static RunOutcome goodOnly;

  @BeforeAll
  static void runBoth() throws Exception {
    errorFilesBefore = errorFilesOutside();
    reportDir = Files.createTempDirectory("opcheck4j-isolation-");
    mixed = Launcher.execute(RunRequest.builder().spec(NativeOps.spec("good_ops.json")).spec(CRASH_SPEC)
        .seed(5L).tries(3).jobs(2).reportDir(reportDir).build(), dev.opcheck4j.api.RunListener.NONE);
    goodOnly = Launcher.execute(RunRequest.builder().spec(NativeOps.spec("good_ops.json"))
        .seed(5L).tries(3).jobs(1).build(), dev.opcheck4j.api.RunListener.NONE);
  }

  private static List<CheckResult> failedOf(String op) {
    return mixed.report().results().stream()
        .filter(r -> r.op().equals(op) && r.outcome() == Outcome.FAILED).toList();
  }

  private static CheckResult onlyFailureOf(String op) {
    List<CheckResult> failed = failedOf(op);
    assertEquals(1, failed.size(), op + ": " + failed);
    return failed.get(0);
  }

  @Test
  void eachCrashOpGivesExactlyTheFindingItsMarkerNames() throws IOException {
    Map<String, Set<String>> expected = NativeOps.expectations("crash_ops.cpp");
    assertEquals(11, expected.size(), expected.toString());
    for (Map.Entry<String, Set<String>> e : expected.entrySet()) {
      Set<String> failed = failedOf(e.getKey()).stream().map(CheckResult::check).collect(Collectors.toSet());
      assertEquals(e.getValue(), failed, e.getKey());
    }
    assertEquals(List.of(), failedOf("crash_ops::chatty"), "megabytes on stdout and stderr do not break the channel");
    assertTrue(mixed.report().results().stream().anyMatch(r -> r.op().equals("crash_ops::chatty")
        && r.check().equals("kernel.error") && r.device().equals("cpu") && r.outcome() == Outcome.PASSED));
    assertEquals(0, mixed.report().count(Outcome.ERRORED), mixed.report().results().stream()
        .filter(r -> r.outcome() == Outcome.ERRORED).toList().toString());
  }

  /**
   * pytorch3d's knn_points_idx (our port) dies on K = 0 and refuses a norm other than 1 or 2 (issue 52): the
   * first try to reach K = 0 has norm 0, which the kernel refuses, and the follow-up that puts its norm back
   * crashes. The crash is that follow-up's input (norm back, K = 0), confirmed alone on a fresh worker, never the
   * refused try; and its root cause is no earlier unit's refusal.
   */
  @Test
  void aCrashIsBlamedOnTheInputThatCrashesAloneAndOnlyItsOwnOutputIsItsRootCause() {
    CheckResult r = onlyFailureOf("crash_ops::knn_points_idx");
    assertEquals("kernel.crash", r.check());
    String minimal = r.fact(Fact.MINIMAL_EXAMPLE).orElseThrow();
    assertTrue(minimal.matches(".*norm=[12], K=0\\b.*"), r.toString());
    assertEquals("crashed again when its input ran alone, on a fresh worker", r.fact(CrashWitness.ALONE).orElseThrow());
    assertTrue(r.fact("root cause").map(c -> !c.contains("Support for 1 or 2 norm")).orElse(true), r.toString());
  }

  @Test
  void aCrashNamesTheSignalTheFramesTheUnitAndTheRerun() throws IOException {
    // as a front end shows it: the run gives what reproduces it, the front end writes the rerun line
    CheckResult r = onlyFailureOf("crash_ops::null_deref").withRerun(Rerun.CLI);
    assertEquals("kernel.crash", r.check());
    assertEquals("cpu", r.device());
    assertTrue(r.example().endsWith("crash_ops.json#ops[0].examples[0]"), r.example());
    assertEquals(List.of("expected", "but was", "check", "example", CrashWitness.ALONE, "exit status", "native frames",
        "error file", "worker output", "seed", "rerun", "hint"), r.facts().stream().map(f -> f.key()).toList());
    assertEquals("crashed again when its input ran alone, on a fresh worker", r.fact(CrashWitness.ALONE).orElseThrow());
    assertTrue(r.fact("but was").orElseThrow().startsWith("SIGSEGV"), r.toString());
    assertEquals("the cpu kernel for kernel.error", r.fact("check").orElseThrow(), "the step the worker died in");
    assertTrue(r.fact("native frames").orElseThrow().contains("libcrash_ops.so"), r.toString());
    assertTrue(r.fact("native frames").orElseThrow().contains("null_deref"), r.toString());
    assertTrue(Path.of(r.fact(Fact.ERROR_FILE).orElseThrow()).startsWith(reportDir.toAbsolutePath()), r.toString());
    // the JVM's report of a crash is given seconds: a heap the kernel corrupted can hang it, and the crash then
    // ended at the unit's deadline as a kernel.timeout (upstream torchaudio::_lfilter_core_loop, 60 s)
    assertTrue(Files.readString(Path.of(r.fact(Fact.ERROR_FILE).orElseThrow()), StandardCharsets.ISO_8859_1)
        .contains(" -XX:ErrorLogTimeout=12 "), "the worker's command line, as its error file gives it");
    assertTrue(r.fact("rerun").orElseThrow().startsWith("./opcheck check --spec " + CRASH_SPEC
        + " --op crash_ops::null_deref --check kernel.error --device cpu --seed 5"), r.toString());
  }

  @Test
  void abortTerminateExitAndAnOutsideKillAreCrashesWithTheirCause() {
    assertTrue(onlyFailureOf("crash_ops::calls_abort").fact("but was").orElseThrow().contains("SIGABRT"));
    CheckResult terminate = onlyFailureOf("crash_ops::throws_in_noexcept");
    assertTrue(terminate.fact("but was").orElseThrow().contains("SIGABRT"), terminate.toString());
    assertTrue(terminate.fact("worker output").orElseThrow().contains("terminate called after throwing"), terminate.toString());
    assertEquals("terminate called after throwing an instance of 'std::runtime_error' | what():  thrown inside a noexcept function",
        terminate.fact("root cause").orElseThrow(), "the root cause is a fact of its own: " + terminate);
    CheckResult exit = onlyFailureOf("crash_ops::calls_exit");
    assertEquals("kernel.crash", exit.check(), "exit(0) inside a kernel must not pass as success");
    assertTrue(exit.fact("exit status").orElseThrow().startsWith("0"), exit.toString());
    assertTrue(onlyFailureOf("crash_ops::killed").fact("but was").orElseThrow().contains("out-of-memory killer"));
    assertTrue(onlyFailureOf("crash_ops::deep_recursion").fact("but was").orElseThrow().contains("SIGSEGV"));
  }

  @Test
  void aHangIsATimeoutAfterTheOpsDeadline() {
    CheckResult r = onlyFailureOf("crash_ops::spins");
    assertEquals("kernel.timeout", r.check());
    assertEquals("the unit finishes within 3 s", r.fact("expected").orElseThrow());
    assertTrue(r.fact("deadline").orElseThrow().startsWith("3 s"), r.toString());
  }

  @Test
  void aHugeAllocationIsAKernelErrorNamingTheBytes() {
    CheckResult r = onlyFailureOf("crash_ops::huge_alloc");
    assertEquals("kernel.error", r.check());
    assertEquals("70368744177664", r.fact("requested bytes").orElseThrow());
  }

  @Test
  void goodOpsKeepEveryResultNextToCrashingOnes() {
    List<String> withCrashes = comparable(mixed.report().results().stream().filter(r -> r.op().startsWith("good_ops")));
    List<String> alone = comparable(goodOnly.report().results().stream());
    assertEquals(alone, withCrashes);
  }

  static List<String> comparable(Stream<CheckResult> results) {
    return results.map(r -> r.op() + " " + r.check() + " " + r.device() + " " + r.example() + " " + r.outcome() + " "
        + r.facts()).toList();
  }

  @Test
  void everyResultIsInTheCrashSafeFileInPlanOrder() throws IOException {
    RunOutcome fromFile = ResultsFile.merge(List.of(reportDir));
    assertEquals(mixed.report().results(), fromFile.report().results());
  }

  @Test
  void errorFilesGoOnlyToTheReportDir() throws IOException {
    assertEquals(errorFilesBefore, errorFilesOutside());
    try (Stream<Path> files = Files.list(reportDir)) {
      assertTrue(files.anyMatch(p -> p.getFileName().toString().startsWith("hs_err_pid")));
    }
  }

  @Test
  void noWorkerOutlivesTheRun() {
    List<String> workers = ProcessHandle.allProcesses()
        .map(p -> p.info().commandLine().orElse(""))
        .filter(c -> c.contains("dev.opcheck4j.run.worker.Worker") && c.contains(reportDir.toString()))
        .toList();
    assertEquals(List.of(), workers);
    assertFalse(ProcessHandle.current().descendants()
        .anyMatch(p -> p.info().commandLine().orElse("").contains("dev.opcheck4j.run.worker.Worker")));
  }

  private static Set<Path> errorFilesOutside() throws IOException {
    Set<Path> found = new java.util.TreeSet<>();
    for (Path dir : List.of(Path.of("").toAbsolutePath(), NativeOps.repoRoot())) {
      try (Stream<Path> files = Files.list(dir)) {
        files.filter(p -> p.getFileName().toString().startsWith("hs_err")).forEach(found::add);
      }
    }
    return found;
  }
}
