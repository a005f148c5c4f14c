package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The parent (the command line here) loads no native code: in a JVM of its own, with class loading
 * logged, a whole run checks kernels (in workers) while JavaCPP's {@code Loader} and libtorch's
 * {@code global.torch} are never even loaded, so no native library can have been.
 */
class ParentProcessTests {
  @Test
  void theParentNeverLoadsJavaCppOrLibtorch() throws IOException, InterruptedException {
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-verbose:class", "-cp", System.getProperty("java.class.path"), "dev.opcheck4j.cli.Main", "check",
        "--spec", NativeOps.spec("good_ops.json").toString(), "--op", "good_ops::add_scalar", "--tries", "2",
        "--jobs", "1", "--verbose")
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("PASSED [kernel.error] good_ops::add_scalar on cpu"), "kernels ran (in a worker)");
    List<String> loaded = out.lines().filter(l -> l.contains("[class,load]")).toList();
    assertTrue(loaded.size() > 100, "class loading is logged");
    assertEquals(List.of(), loaded.stream().filter(l -> l.contains(" org.bytedeco.javacpp.Loader ")
        || l.contains(" org.bytedeco.pytorch.global.torch ")).toList());
  }
}
