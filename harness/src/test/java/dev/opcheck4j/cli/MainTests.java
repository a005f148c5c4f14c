package dev.opcheck4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTests {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private ExitCode run(String... args) {
    Main main = new Main(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), NativeOps.repoRoot());
    return main.run(args);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void listShowsEachOpWithSchemaAndKernels() {
    assertEquals(ExitCode.OK, run("list", "--library", NativeOps.lib("my_ops").toString()));
    assertTrue(out().lines().anyMatch(l -> l.equals(
        "my_ops::warp_perspective\tmy_ops::warp_perspective(Tensor image, Tensor warp, int height, int width) -> Tensor\t[CPU, Meta]")),
        out());
  }

  @Test
  void listOfANonLibraryIsOneClearLine() {
    assertEquals(ExitCode.INPUT_ERROR, run("list", "--library", "/etc/hostname"));
    assertEquals("opcheck: not a shared library (no ELF header): /etc/hostname\n", err());
  }

  @Test
  void listOfAMissingFileIsOneClearLine() {
    assertEquals(ExitCode.INPUT_ERROR, run("list", "--library", "/nonexistent.so"));
    assertEquals("opcheck: library not found: /nonexistent.so\n", err());
  }

  @Test
  void checkingBadOpsExitsOneAndGoodOpsZero() {
    assertEquals(ExitCode.CHECK_FAILED, run("check", "--library", NativeOps.lib("bad_ops").toString(), "--check", "schema"));
    assertTrue(out().contains("FAILED [schema.types] bad_ops::dict_arg"), out());
    assertEquals(ExitCode.OK, run("check", "--library", NativeOps.lib("good_ops").toString()));
  }

  @Test
  void anUnknownCheckIsAUsageError() {
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--library", NativeOps.lib("good_ops").toString(), "--check", "nope"));
    assertTrue(err().startsWith("opcheck: unknown check or family 'nope'; known: registration.exists"), err());
  }

  @Test
  void anUnknownOpIsReportedWithSuggestionsAndOtherResultsAreKept() {
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--library", NativeOps.lib("my_ops").toString(),
        "--op", "my_ops::mul_ad", "--op", "my_ops::mul_add", "--check", "registration"));
    assertTrue(err().contains("operator my_ops::mul_ad is not registered by libmy_ops.so; did you mean my_ops::mul_add"), err());
    assertTrue(out().contains("summary: "), out());
    assertTrue(out().contains("FAILED [registration.exists] my_ops::mul_ad"), out());
  }

  @Test
  void aMalformedSpecGivesFileLineAndColumn(@TempDir Path dir) throws IOException {
    Path spec = Files.writeString(dir.resolve("bad.json"), "{\n  \"library\": \"x.so\",\n  \"ops\": [ {\"op\": } ]\n}\n");
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--spec", spec.toString()));
    assertTrue(err().startsWith("opcheck: " + spec + ":3:"), err());
    assertEquals(1, err().lines().count(), err());
  }

  @Test
  void anUnknownCommandIsAUsageError() {
    assertEquals(ExitCode.INPUT_ERROR, run("frobnicate"));
    assertEquals("opcheck: unknown command 'frobnicate'; expected list, check, model, baseline, demo or bench\n", err());
  }
}
