package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parent (the command line here) loads no native code: in a JVM of its own, with class loading
 * logged, a command that needs libtorch (a whole run checking kernels, a model loaded and run, a
 * schema baseline recorded) does its native work in a worker while JavaCPP's {@code Loader} and
 * libtorch's {@code global.torch} are never even loaded, so no native library can have been.
 */
class ParentProcessTests {
  record Run(int code, String out) {}

  /** {@code ./opcheck ARGS} in a JVM of its own with class loading logged: its exit code and all it printed. */
  static Run parent(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-verbose:class", "-cp", System.getProperty("java.class.path"), "dev.opcheck4j.cli.Main"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Run(p.waitFor(), out);
  }

  /** Asserts that class loading was logged and that neither JavaCPP's loader nor libtorch's globals were loaded. */
  static void assertNoNativeCode(String out) {
    List<String> loaded = out.lines().filter(l -> l.contains("[class,load]")).toList();
    assertTrue(loaded.size() > 100, "class loading is logged");
    assertEquals(List.of(), loaded.stream().filter(l -> l.contains(" org.bytedeco.javacpp.Loader ")
        || l.contains(" org.bytedeco.pytorch.global.torch ")).toList());
  }

  @Test
  void theParentNeverLoadsJavaCppOrLibtorch() throws IOException, InterruptedException {
    Run r = parent("check", "--spec", NativeOps.spec("good_ops.json").toString(), "--op", "good_ops::add_scalar",
        "--tries", "2", "--jobs", "1", "--verbose");
    assertEquals(0, r.code(), r.out());
    assertTrue(r.out().contains("PASSED [kernel.error] good_ops::add_scalar on cpu"), "kernels ran (in a worker)");
    assertNoNativeCode(r.out());
  }

  @Test
  void modelLoadsAndRunsTheModelInAWorker() throws IOException, InterruptedException {
    Run r = parent("model", NativeOps.repoRoot().resolve("fixtures/models/warp_model.pt").toString(),
        "--library", NativeOps.lib("my_ops").toString(), "--input", "float32[16,16]", "--input", "float32[8,4]");
    assertEquals(0, r.code(), r.out());
    assertTrue(r.out().contains("  my_ops::warp_perspective  resolved by libmy_ops.so  (in WarpModel.forward)\n"), r.out());
    assertTrue(r.out().contains("  output: float32[8, 4]\n"), "forward ran (in a worker): " + r.out());
    assertNoNativeCode(r.out());
  }

  @Test
  void baselineRecordsTheLibraryInAWorker(@TempDir Path dir) throws IOException, InterruptedException {
    Path file = dir.resolve("v1.json");
    Run r = parent("baseline", "--library", NativeOps.lib("compat_v1").toString(), "--out", file.toString());
    assertEquals(0, r.code(), r.out());
    assertTrue(Files.readString(file).contains("\"schema\" : \"compat::defaulted(Tensor x, int n=2) -> Tensor\""),
        Files.readString(file));
    assertNoNativeCode(r.out());
  }

  /** A library that aborts in its static initializer is one line naming it, exit 2, for both commands. */
  @Test
  void aLibraryThatCrashesWhileLoadingIsOneLine(@TempDir Path dir) throws IOException, InterruptedException {
    Path lib = NativeOps.lib("abort_on_load");
    for (Run r : List.of(parent("baseline", "--library", lib.toString(), "--out", dir.resolve("b.json").toString()),
        parent("model", NativeOps.repoRoot().resolve("fixtures/models/warp_model.pt").toString(), "--library",
            lib.toString()))) {
      List<String> printed = r.out().lines().filter(l -> !l.startsWith("[")).toList();
      assertEquals(2, r.code(), r.out());
      assertEquals(1, printed.size(), printed.toString());
      assertTrue(printed.get(0).startsWith("opcheck: ") && printed.get(0).contains(lib.getFileName().toString())
          && printed.get(0).contains("crashed the process while loading"), printed.get(0));
      assertNoNativeCode(r.out());
    }
  }

  /**
   * With two workers the second starts beside the first, before the libraries are known to load: a
   * library that crashes both is still one line, exit 2, and no report dir is left.
   */
  @Test
  void aLibraryThatCrashesTwoWorkersStartedAtOnceIsOneLine(@TempDir Path dir) throws IOException, InterruptedException {
    Path lib = NativeOps.lib("abort_on_load");
    Run r = parent("check", "--library", lib.toString(), "--jobs", "2", "--report-dir", dir.resolve("out").toString());
    List<String> printed = r.out().lines().filter(l -> !l.startsWith("[") && !l.isBlank()
        && !l.startsWith("opcheck4j ") && !l.startsWith("libtorch ")).toList();
    assertEquals(2, r.code(), r.out());
    assertEquals(1, printed.stream().filter(l -> l.startsWith("opcheck: ")).count(), printed.toString());
    assertTrue(printed.stream().anyMatch(l -> l.contains("crashed the process while loading")), printed.toString());
    String line = printed.stream().filter(l -> l.startsWith("opcheck: ")).findFirst().orElseThrow();
    Path log = Path.of(line.substring(line.lastIndexOf("; worker log: ") + "; worker log: ".length()));
    assertEquals(dir.resolve("out"), log.getParent(), "the worker's log is kept in the report dir: " + line);
    assertTrue(Files.isRegularFile(log), "kept: " + log);
    assertFalse(Files.exists(dir.resolve("out/opcheck-results.jsonl")), "a run that never started writes no results");
  }

  /**
   * A classic TORCH_LIBRARY library built against other headers than the runtime's (here, this build's)
   * is one line, exit 2, naming the undefined symbol, demangled, and what it means; it is refused before
   * it is loaded, so no worker dies.
   */
  @Test
  void aClassicLibraryBuiltAgainstOtherHeadersIsOneLineNamingTheSymbol() throws IOException, InterruptedException {
    Path lib = NativeOps.otherHeadersFixture().toRealPath();
    Run r = parent("list", "--library", lib.toString());
    List<String> printed = r.out().lines().filter(l -> !l.startsWith("[")).toList();
    assertEquals(2, r.code(), r.out());
    assertEquals(1, printed.size(), r.out());
    assertTrue(printed.get(0).startsWith("opcheck: " + lib + ": undefined symbols torch::autograd::"), printed.get(0));
    assertTrue(printed.get(0).contains("built against another libtorch than the 2.13.0 this harness runs; rebuild against 2.13.0's headers "
        + "(see docs/op-library.md), or port to the stable ABI (probably built with libtorch 2.14's headers"), printed.get(0));
    assertNoNativeCode(r.out());
  }

  /**
   * A library whose static initializer calls a function nothing defines ends its worker with status
   * 127 (the dynamic loader's lazy binding): the line names the symbol, and the worker's log stays in
   * the report dir.
   */
  @Test
  void aLibraryTheLoaderEndsIsOneLineNamingTheSymbol(@TempDir Path dir) throws IOException, InterruptedException {
    Path lib = NativeOps.lib("missing_on_load").toRealPath();
    Path out = dir.resolve("out");
    Run r = parent("check", "--library", lib.toString(), "--report-dir", out.toString());
    List<String> printed = r.out().lines().filter(l -> l.startsWith("opcheck: ")).toList();
    assertEquals(2, r.code(), r.out());
    assertEquals(List.of("opcheck: " + lib + ": undefined symbol opcheck4j_missing_function (the dynamic loader ended "
        + "the worker, status 127, when the library's static initializer called it); worker log: " + out.resolve("worker-1.log")),
        printed);
    assertTrue(Files.readString(out.resolve("worker-1.log")).contains("undefined symbol: opcheck4j_missing_function"));
  }
}
