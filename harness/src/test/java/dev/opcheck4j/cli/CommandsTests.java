package dev.opcheck4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Dispatch, help and "did you mean" read the one list of commands. */
class CommandsTests {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private ExitCode run(String... args) {
    return new Main(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
        NativeOps.repoRoot()).run(args);
  }

  @Test
  void helpListsEveryCommandInOrder() {
    assertEquals(ExitCode.OK, run("--help"));
    String help = out.toString(StandardCharsets.UTF_8);
    int at = -1;
    for (Command c : Commands.all()) {
      int next = help.indexOf("opcheck " + c.synopsis() + "\n");
      assertTrue(next > at, c.name() + " missing or out of order in\n" + help);
      at = next;
    }
  }

  @Test
  void everyCommandHasItsOwnHelp() {
    for (Command c : Commands.all()) {
      out.reset();
      assertEquals(ExitCode.OK, run(c.name(), "--help"), c.name());
      String help = out.toString(StandardCharsets.UTF_8);
      assertTrue(help.startsWith("usage: opcheck " + c.synopsis() + "\n" + c.summary() + "\n"), help);
      c.options().forEach(o -> assertTrue(help.contains("  " + o.flag()), o.flag() + " missing from\n" + help));
    }
  }

  @Test
  void namesAreUnique() {
    assertEquals(Commands.names().stream().distinct().toList(), Commands.names());
  }

  @Test
  void aMisspelledCommandGetsTheClosestName() {
    assertEquals(ExitCode.INPUT_ERROR, run("basline", "--library", "x.so"));
    assertEquals("opcheck: unknown command 'basline'; did you mean baseline?\n", err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aMisspelledOptionGetsTheClosestOptionOfItsCommand() {
    assertEquals(ExitCode.INPUT_ERROR, run("init", "--library", "x.so", "--ot", "y.yaml"));
    assertEquals("opcheck: unknown option '--ot'; did you mean --out? (see --help)\n", err.toString(StandardCharsets.UTF_8));
    err.reset();
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--spec", "x.json", "--warnings-as-error"));
    assertEquals("opcheck: unknown option '--warnings-as-error'; did you mean --warnings-as-errors? (see --help)\n",
        err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void anOptionOfAnotherCommandIsUnknownHere() {
    assertEquals(ExitCode.INPUT_ERROR, run("list", "--library", "x.so", "--tries", "3"));
    assertEquals("opcheck: unknown option '--tries' (see --help)\n", err.toString(StandardCharsets.UTF_8));
  }
}
