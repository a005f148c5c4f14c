package dev.opcheck4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunListener;
import java.time.Instant;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConsoleTests {

  static CheckResult failed(String op, String check, String device) {
    return new CheckResult(op, check, device, "s.json#ops[0].examples[0]", Outcome.FAILED,
        List.of(new Fact("expected", "|diff| <= 1e-07"), new Fact("but was", "max |diff| 1.1102230246251565E-16 and 0.4123456789")), 10);
  }

  static CheckResult passed(String op, String check, String device) {
    return new CheckResult(op, check, device, "-", Outcome.PASSED, List.of(), 10);
  }

  /** Tells {@code console} that {@code op} ran and gave {@code results}. */
  static void op(Console console, String op, CheckResult... results) {
    RunListener.OpEvent event = new RunListener.OpEvent(op, "/lib/libns.so", null, Instant.EPOCH);
    console.opStarted(event);
    for (CheckResult r : results) {
      console.result(r);
    }
    console.opFinished(event);
  }

  @Test
  void inCiEachOpIsOneLineAndAFailureOnTwoDevicesPrintsOnceListingBoth() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Console console = new Console(new PrintStream(bytes, true, StandardCharsets.UTF_8), false, false, false, 2);
    op(console, "ns::a", passed("ns::a", "schema.types", "-"), failed("ns::a", "determinism", "cpu"),
        failed("ns::a", "determinism", "cuda"));
    op(console, "ns::b", passed("ns::b", "schema.types", "-"));
    console.finish();
    assertEquals("""
        FAILED [determinism] ns::a on cpu, cuda (s.json#ops[0].examples[0])
          expected : |diff| <= 1e-7
          but was  : max |diff| 1.1e-16 and 0.4123
        [1/2] ns::a: 1 passed, 2 failed
        [2/2] ns::b: 1 passed
        """, bytes.toString(StandardCharsets.UTF_8));
  }

  @Test
  void theHeaderListsTheDevicesThatRunAndSaysOnceWhyTheOthersDoNot() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Console console = new Console(new PrintStream(bytes, true, StandardCharsets.UTF_8), false, false, false, 0);
    console.runStarted(new RunInfo("0.1.0", "2.10.0", "1.5.13", 1L, 0, 1,
        List.of(new RunInfo.DeviceInfo("cpu", true, null), new RunInfo.DeviceInfo("meta", true, null),
            new RunInfo.DeviceInfo("cuda", false, "no CUDA device in this process")),
        List.of(), List.of(), java.time.Instant.EPOCH, 0, null, null));
    assertEquals("devices: cpu, meta (cuda skipped: no CUDA device in this process)\n", bytes.toString(StandardCharsets.UTF_8));
  }

  @Test
  void onATerminalTheProgressLineIsRedrawnInPlaceAndClearedBeforeFindings() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Console console = new Console(new PrintStream(bytes, true, StandardCharsets.UTF_8), true, false, false, 2);
    op(console, "ns::a", failed("ns::a", "determinism", "cpu"));
    op(console, "ns::b", passed("ns::b", "schema.types", "-"));
    console.finish();
    String text = bytes.toString(StandardCharsets.UTF_8);
    String first = text.substring(0, text.indexOf("FAILED"));
    assertEquals(true, first.matches("\r\033\\[2Kops 0/2 \\| ns::a \\| \\d+ ms \\| 0 failures\r\033\\[2K"), first);
    assertEquals(true, text.contains("\r\033[2Kops 1/2 | ns::b | "), text);
    assertEquals(true, text.endsWith("\r\033[2K"), "the line is cleared at the end");
  }

  @Test
  void onAColourTerminalTheFindingsFirstWordAndTheFailureCountAreColouredAndTheTotalIsTheRunsOwn() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Console console = new Console(new PrintStream(bytes, true, StandardCharsets.UTF_8), true, true, false, false, 0);
    console.planned(3); // checked with --library: no spec to count ahead, the run says it
    op(console, "ns::a", failed("ns::a", "determinism", "cpu"));
    op(console, "ns::b", passed("ns::b", "schema.types", "-"));
    console.finish();
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(true, text.contains("\033[1;31mFAILED\033[0m [determinism] ns::a on cpu"), text);
    assertEquals(true, text.contains("\r\033[2Kops 1/3 | ns::b | "), text);
    assertEquals(true, text.contains("| \033[1;31m1 failure\033[0m"), text);
  }

  @Test
  void colourIsForTerminalsThatShowIt() {
    assertEquals(true, Console.colourTerminal(java.util.Map.of("TERM", "tmux-256color")));
    assertEquals(true, Console.colourTerminal(java.util.Map.of("TERM", "xterm-256color")));
    assertEquals(false, Console.colourTerminal(java.util.Map.of("TERM", "dumb")));
    assertEquals(false, Console.colourTerminal(java.util.Map.of()));
    assertEquals(false, Console.colourTerminal(java.util.Map.of("TERM", "tmux-256color", "NO_COLOR", "1")));
  }

  @Test
  void aNeverRanLineIsWrappedAtSpacesNotInAWord() {
    dev.opcheck4j.api.Coverage coverage = new dev.opcheck4j.api.Coverage(List.of(new dev.opcheck4j.api.Coverage.Entry(
        "ns::a", "gradcheck", "cpu", 0, 0, "the op has no Autograd or CompositeImplicitAutograd kernel for cpu:"
        + " gradients stop at it (see autograd.differentiable)", false)));
    List<String> lines = RunSummary.gapLines(coverage);
    assertEquals(1, lines.size());
    List<String> shown = List.of(lines.get(0).split("\n"));
    assertEquals(true, shown.size() > 1, lines.get(0));
    shown.forEach(l -> assertEquals(true, l.length() <= HumanText.WIDTH, l));
    assertEquals(true, shown.get(1).startsWith("  ") && !shown.get(1).startsWith("   "), lines.get(0));
    assertEquals(String.join(" ", shown.stream().map(String::strip).toList()), lines.get(0).replace("\n  ", " "));
  }

  @Test
  void numbersAreRoundedForPeopleAndLongLinesWrapped() {
    assertEquals("1.1e-16", HumanText.round("1.1102230246251565E-16"));
    assertEquals("0.4123", HumanText.round("0.41234567"));
    assertEquals("123.5", HumanText.round("123.456789"));
    assertEquals("2.5e6", HumanText.round("2512345.678901"));
    assertEquals("x=float32[4, 3] [0.1, 2.0]", HumanText.roundNumbers("x=float32[4, 3] [0.1, 2.0]"));
    assertEquals(List.of("aaa bbb", "ccc"), HumanText.wrap("aaa bbb ccc", 8));
  }
}
