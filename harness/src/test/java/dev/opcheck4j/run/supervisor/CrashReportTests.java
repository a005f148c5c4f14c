package dev.opcheck4j.run.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the parent says of a dead worker, from the error files HotSpot writes (samples cut from real
 * ones in {@code crash-reports/}), the exit status and the worker's log. HotSpot writes no error file
 * for SIGABRT (abort(), an uncaught C++ exception): that crash is told from its status and log alone.
 */
class CrashReportTests {
  private static final Path LOG = Path.of("/run/opcheck/worker-3.log");
  private static final Path ERROR_FILE = Path.of("/run/opcheck/hs_err_pid4242.log");
  /** What a worker that crashed with an error file printed: the JVM's banner alone. */
  private static final WorkerOutput BANNER = WorkerOutput.of(LOG, """
      #
      # A fatal error has been detected by the Java Runtime Environment:
      #
      #  SIGSEGV (0xb) at pc=0x00007efbfc016332, pid=4242, tid=4244
      #
      """, "# See problematic frame for where to report the bug.\n#\n", false);

  private static String sample(String name) {
    try {
      return Files.readString(Path.of(CrashReportTests.class.getResource("/crash-reports/" + name).toURI()),
          StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ErrorFile errorFile(String name) {
    return ErrorFile.parse(ERROR_FILE, sample(name));
  }

  private static List<String> keys(CrashReport r) {
    return r.facts().stream().map(Fact::key).toList();
  }

  private static String fact(CrashReport r, String key) {
    return r.facts().stream().filter(f -> f.key().equals(key)).map(Fact::value).findFirst().orElseThrow();
  }

  @Test
  void aSegfaultInANativeFrameNamesTheSignalLineAndTheNativeFrames() {
    CrashReport r = new CrashReport(1, false, Optional.of(errorFile("sigsegv-native.hs_err")), BANNER);
    assertEquals(new Cause.Crash("SIGSEGV"), r.cause());
    assertEquals(Optional.of(0L), r.faultAddress(), "si_addr: a null dereference; memory.bounds maps it to no guard page");
    assertEquals("SIGSEGV (0xb) at pc=0x00007efbfc016332, pid=4242, tid=4244", r.message());
    assertEquals(List.of("exit status", "native frames", "error file", "worker output"), keys(r),
        "the banner is no root cause: it says nothing the error file does not");
    assertEquals("1 (after the JVM wrote its error file)", fact(r, "exit status"));
    assertEquals("C [libcrash_ops.so+0xb332] (anonymous namespace)::null_deref(torch::stable::Tensor)+0x32"
        + " | C [libcrash_ops.so+0xbbc1] torch::stable::detail::boxer<torch::stable::Tensor (torch::stable::Tensor),"
        + " &(anonymous namespace)::null_deref>::boxed_fn(unsigned long*, unsigned long, unsigned long)+0x221",
        fact(r, "native frames"));
    assertEquals(ERROR_FILE.toString(), fact(r, "error file"));
    assertEquals("# See problematic frame for where to report the bug. | #  (all of it: " + LOG + ")",
        fact(r, "worker output"));
  }

  @Test
  void aCrashOnANativeThreadSaysItWasNotTheUnitsThread() {
    CrashReport r = new CrashReport(1, false, Optional.of(errorFile("sigsegv-native-thread.hs_err")), BANNER);
    assertTrue(r.offUnitThread(), "Current thread is native thread");
    assertEquals(List.of("exit status", "crashed thread", "native frames", "error file", "worker output"), keys(r));
    assertEquals("a native thread, not the one the unit ran on: one native code started (a thread pool's, or one a"
        + " kernel left running)", fact(r, "crashed thread"));
    // a crash on the thread the unit runs on (JavaThread "main") is not
    assertFalse(new CrashReport(1, false, Optional.of(errorFile("sigsegv-native.hs_err")), BANNER).offUnitThread());
  }

  @Test
  void anAbortLeavesNoErrorFileAndIsToldFromItsStatusAndWhatTheKernelPrinted() {
    String log = sample("worker-terminate.log");
    CrashReport r = new CrashReport(134, false, Optional.empty(), WorkerOutput.of(LOG, log, log, false));
    assertEquals(new Cause.Crash("SIGABRT"), r.cause());
    assertEquals("killed by SIGABRT (abort(), or std::terminate from an uncaught C++ exception)", r.message());
    assertEquals(List.of("root cause", "exit status", "worker output"), keys(r));
    assertEquals("terminate called after throwing an instance of 'std::runtime_error'"
        + " | what():  thrown inside a noexcept function", fact(r, "root cause"));
    assertEquals("134 (signal 6, SIGABRT)", fact(r, "exit status"));
    assertEquals("terminate called after throwing an instance of 'std::runtime_error'"
        + " | what():  thrown inside a noexcept function  (all of it: " + LOG + ")", fact(r, "worker output"));
  }

  @Test
  void aCrashInCompiledJavaCodeGivesItsJavaFramesAndTheFirstSixOnly() {
    ErrorFile hs = errorFile("java-only.hs_err");
    assertEquals("SIGSEGV (0xb) at pc=0x00007f8ad4ec8694, pid=5151, tid=5152", hs.cause());
    assertEquals(List.of(
        "J 16 c2 Poke.poke(Lsun/misc/Unsafe;J)J (6 bytes) @ 0x00007f8ad4ec8694 [0x00007f8ad4ec8680+0x0000000000000014]",
        "j Poke.main([Ljava/lang/String;)V+56",
        "v ~StubRoutines::call_stub",
        "V [libjvm.so+0x8282d2] JavaCalls::call_helper(JavaValue*, methodHandle const&, JavaCallArguments*, JavaThread*)+0x302",
        "V [libjvm.so+0x8c00aa] jni_invoke_static(JNIEnv_*, JavaValue*, _jobject*, JNICallType, _jmethodID*,"
            + " JNI_ArgumentPusher*, JavaThread*) [clone .constprop.1]+0x3aa",
        "V [libjvm.so+0x8d1a1f] jni_CallStaticVoidMethod+0x24f"), hs.frames());
    CrashReport r = new CrashReport(1, false, Optional.of(hs), BANNER);
    assertEquals(new Cause.Crash("SIGSEGV"), r.cause());
    assertTrue(fact(r, "native frames").startsWith("J 16 c2 Poke.poke"), r.facts().toString());
  }

  @Test
  void aFileCutInTheMiddleOfItsFramesGivesTheFramesWrittenUpToTheCut() {
    ErrorFile hs = errorFile("truncated.hs_err");
    assertEquals("SIGSEGV (0xb) at pc=0x00007efbfc016332, pid=4242, tid=4244", hs.cause());
    assertEquals(List.of("C [libcrash_ops.so+0xb332] (anonymous namespace)::null_deref(torch::stable::Tensor)+0x32",
        "C [libcrash_ops.so+0xbbc1] torch::stable::detail::boxer<torch::stable::Tens"), hs.frames());
  }

  @Test
  void aFileCutBeforeItsFramesGivesTheProblematicFrame() {
    String head = sample("sigsegv-native.hs_err");
    ErrorFile hs = ErrorFile.parse(ERROR_FILE, head.substring(0, head.indexOf("# CreateCoredumpOnCrash")));
    assertEquals("SIGSEGV (0xb) at pc=0x00007efbfc016332, pid=4242, tid=4244", hs.cause());
    assertEquals(List.of("C  [libcrash_ops.so+0xb332]  (anonymous namespace)::null_deref(torch::stable::Tensor)+0x32"),
        hs.frames());
  }

  @Test
  void aFileCutBeforeItsSignalLineStillSaysTheJvmCrashedAndWhereToLook() {
    String head = sample("sigsegv-native.hs_err");
    ErrorFile hs = ErrorFile.parse(ERROR_FILE, head.substring(0, head.indexOf("#  SIGSEGV")));
    assertEquals(new ErrorFile(ERROR_FILE, "the JVM crashed (see the error file)", List.of()), hs);
    CrashReport r = new CrashReport(1, false, Optional.of(hs), BANNER);
    assertEquals(new Cause.Crash("exit 1"), r.cause());
    assertEquals("the JVM crashed (see the error file)", r.message());
    assertEquals(List.of("exit status", "error file", "worker output"), keys(r));
  }

  /**
   * A kernel that damaged the heap can leave glibc's allocator locked as it faults: HotSpot's report then waits at
   * its first step that allocates (decoding the problematic frame), times out there and at every later one. The
   * parent kills the worker at the first timed-out step (WorkerProcess): the crash is still the signal the error
   * file names, and its facts say why the worker ended by SIGKILL.
   */
  @Test
  void aCrashReportThatStalledIsTheFileSignalsCrashAndSaysTheWorkerWasKilledThere() {
    ErrorFile hs = errorFile("stalled.hs_err");
    assertEquals(Optional.of("printing problematic frame"), hs.stalledStep());
    assertEquals(List.of("C  [libc.so.6+0x962cf]"), hs.frames(), "what the report wrote before it stalled");
    CrashReport r = new CrashReport(137, true, Optional.of(hs), BANNER);
    assertEquals(new Cause.Crash("SIGSEGV"), r.cause());
    assertEquals("", WorkerOutput.of(LOG, sample("stalled.hs_err"), "", false).rootCause(),
        "the report's step timeout, which the JVM also prints, is no root cause of the crash");
    assertEquals("SIGSEGV (0xb) at pc=0x00007f0c2b70c2cf, pid=4242, tid=4244", r.message());
    assertEquals("137 (killed by opcheck4j once the JVM's crash report stalled)", fact(r, "exit status"));
    assertTrue(fact(r, Fact.CRASH_REPORT).startsWith("stalled in its step \"printing problematic frame\""),
        r.facts().toString());
    assertEquals(Optional.empty(), errorFile("sigsegv-native.hs_err").stalledStep());
    assertFalse(keys(new CrashReport(1, false, Optional.of(errorFile("sigsegv-native.hs_err")), BANNER))
        .contains(Fact.CRASH_REPORT));
  }

  @Test
  void stalledIsReadFromTheFileWhileTheWorkerLives(@TempDir Path dir) throws IOException {
    Path file = ErrorFile.of(dir, 4242);
    java.time.Instant started = java.time.Instant.now().minusSeconds(60);
    assertFalse(ErrorFile.stalled(file, started), "no file: no crash");
    String stalled = sample("stalled.hs_err");
    Files.writeString(file, stalled.substring(0, stalled.indexOf("[timeout")), StandardCharsets.ISO_8859_1);
    assertFalse(ErrorFile.stalled(file, started), "a report under way is not a stalled one");
    Files.writeString(file, stalled, StandardCharsets.ISO_8859_1);
    assertTrue(ErrorFile.stalled(file, started));
    Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.from(started.minusSeconds(1)));
    assertFalse(ErrorFile.stalled(file, started), "an earlier worker's file, whose process id this one got again");
  }

  @Test
  void aJvmOutOfNativeMemorySaysSo() {
    CrashReport r = new CrashReport(1, false, Optional.of(errorFile("out-of-memory.hs_err")), BANNER);
    assertEquals("the JVM ran out of native memory: There is insufficient memory for the Java Runtime Environment"
        + " to continue.", r.message());
    assertEquals(new Cause.Crash("exit 1"), r.cause());
    assertTrue(fact(r, "native frames").startsWith("V [libjvm.so+0xe9a6d5] VMError::report_and_die("), r.toString());
  }

  @Test
  void withoutAnErrorFileTheStatusTellsHowTheWorkerEnded() {
    WorkerOutput nothing = WorkerOutput.of(LOG, "", "", false);
    assertEquals("killed by SIGKILL from outside: most likely the OS's out-of-memory killer",
        new CrashReport(137, false, Optional.empty(), nothing).message());
    assertEquals("killed by SIGKILL", new CrashReport(137, true, Optional.empty(), nothing).message());
    assertEquals("killed by SIGSEGV with no JVM error file (a native stack overflow, e.g. unbounded recursion, leaves none)",
        new CrashReport(139, false, Optional.empty(), nothing).message());
    assertEquals("killed by SIGTERM", new CrashReport(143, false, Optional.empty(), nothing).message());
    CrashReport odd = new CrashReport(133, false, Optional.empty(), nothing);
    assertEquals(new Cause.Crash("signal 5"), odd.cause());
    assertEquals("133 (signal 5, signal 5)", fact(odd, "exit status"));
    CrashReport exit = new CrashReport(0, false, Optional.empty(), nothing);
    assertEquals(new Cause.Crash("exit 0"), exit.cause());
    assertEquals("the worker exited with status 0 in the middle of the unit (a kernel called exit(0)?)", exit.message());
    assertEquals(List.of(new Fact("exit status", "0"), new Fact("worker output", "(nothing)")), exit.facts());
  }

  @Test
  void theRootCauseIsWhatTheExchangeWroteWithoutTheBannerItsLastFourLinesShortened() {
    String exchange = "one\n# banner\ntwo\n\nthree\nfour\n" + "x".repeat(301) + "\n";
    assertEquals("two | three | four | " + "x".repeat(300) + "...", WorkerOutput.of(LOG, exchange, "", false).rootCause());
  }

  @Test
  void theTailIsTheLastSixLinesShortenedWithoutThePartialFirstOne() {
    String last = "partial\n1\n2\n3\n4\n5\n" + "y".repeat(161) + "\n";
    assertEquals("1 | 2 | 3 | 4 | 5 | " + "y".repeat(160) + "...  (all of it: " + LOG + ")",
        WorkerOutput.of(LOG, "", last, true).tail());
    assertEquals("a | b  (all of it: " + LOG + ")", WorkerOutput.of(LOG, "", "a\nb\n", false).tail(),
        "a log read from its start has no partial line");
    assertEquals("b  (all of it: " + LOG + ")", WorkerOutput.of(LOG, "", "a\nb\n", true).tail());
  }

  @Test
  void theLogIsReadFromTheMarkOfTheExchangeInFlight(@TempDir Path dir) throws IOException {
    Path log = dir.resolve("worker-1.log");
    Files.writeString(log, "an earlier exchange's warning\n");
    long mark = Files.size(log);
    Files.writeString(log, "this one's error\n#\n# A fatal error has been detected\n", java.nio.file.StandardOpenOption.APPEND);
    WorkerOutput out = WorkerOutput.read(log, mark);
    assertEquals("this one's error", out.rootCause());
    assertEquals("an earlier exchange's warning | this one's error | # | # A fatal error has been detected  (all of it: "
        + log.toAbsolutePath() + ")", out.tail());
    WorkerOutput missing = WorkerOutput.read(dir.resolve("worker-2.log"), 0);
    assertEquals("", missing.rootCause());
    assertTrue(missing.tail().startsWith("(unreadable: "), missing.tail());
  }

  @Test
  void theErrorFileIsReadWhereTheWorkerWasToldToWriteIt(@TempDir Path dir) throws IOException {
    Path file = ErrorFile.of(dir, 4242);
    assertEquals(dir.resolve("hs_err_pid4242.log"), file);
    assertEquals(Optional.empty(), ErrorFile.read(file));
    Files.writeString(file, sample("sigsegv-native.hs_err"), StandardCharsets.ISO_8859_1);
    assertEquals(Optional.of(ErrorFile.parse(file, sample("sigsegv-native.hs_err"))), ErrorFile.read(file));
  }
}
