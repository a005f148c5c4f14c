package dev.opcheck4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.TerminalText;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Untrusted text on the console: a kernel message, an op name, a spec string or a file name can
 * neither drive the terminal nor make a line thousands of characters long, in CI and on a terminal.
 */
class HostileTextTests {
  /** Clears the screen, retitles the window, links elsewhere, moves up to erase a line, CR, BS, BEL, C1 CSI, RLO. */
  static final String TERMINAL = "\u001b[2J\u001b]0;all passed\u0007\u001b]8;;https://example.invalid/\u001b\\here"
      + "\u001b]8;;\u001b\\\u001b[1A\u001b[2KPASSED\rFAILED\b\b\b\u009b31m\u202eevil";
  /** Any control character but the line break, and the characters that reorder text. */
  static final Pattern RAW = Pattern.compile("[\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]");

  static CheckResult hostile(String op, String message) {
    return new CheckResult(op, "kernel.error", "cpu", "h" + TERMINAL + ".json#ops[0].examples[0]", Outcome.FAILED,
        List.of(new Fact("expected", op + " runs on the example on cpu"), new Fact("but was", "raised: " + message),
            new Fact("worker output", TERMINAL + " | " + TERMINAL)), 10);
  }

  static String console(boolean progress, CheckResult... results) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Console console = new Console(new PrintStream(bytes, true, StandardCharsets.UTF_8), progress, false, true, 1);
    ConsoleTests.op(console, results[0].op(), results);
    console.finish();
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void everyControlCharacterIsMadeVisibleAndLineBreaksOnlyWhereAsked() {
    assertEquals("\\x1b[2J\\x1b]0;t\\x07 \\r\\b\\t\\x00\\x7f \\u009b \\u202e a\\b", TerminalText.visible(
        "\u001b[2J\u001b]0;t\u0007 \r\b\t\u0000\u007f \u009b \u202e a\\b"));
    assertEquals("a\\nb", TerminalText.visible("a\nb"));
    assertEquals("a\nb\\r", TerminalText.visible("a\nb\r", true));
    assertEquals("ünïcödé 😀 \\ `|` <b>", TerminalText.visible("ünïcödé 😀 \\ `|` <b>"), "everything else as it is");
    assertEquals(2, TerminalText.fit("ab\u001bc", false, 5), "\\x1b takes four of the five");
    assertEquals(1, TerminalText.fit("a😀", false, 2), "a surrogate pair is never split");
  }

  @Test
  void inCiAHostileResultPrintsNoControlCharacterAndStaysIndentedUnderItsKey() {
    String op = "ns::op" + TERMINAL;
    String text = console(false, hostile(op, TERMINAL + "\nFAILED [kernel.error] spoofed::line on cpu"));
    assertFalse(RAW.matcher(text).find(), text);
    assertTrue(text.contains("ns::op\\x1b[2J\\x1b]0;all passed\\x07"), "the op name, in the summary and the CI line: " + text);
    assertTrue(text.contains("(h\\x1b[2J"), "the example's file name: " + text);
    assertTrue(text.contains("\\x1b[1A\\x1b[2KPASSED\\rFAILED\\b\\b\\b\\u009b31m\\u202eevil"), text);
    for (String line : text.split("\n")) {
      assertTrue(!line.startsWith("FAILED [kernel.error] spoofed") && !line.startsWith("PASSED"),
          "no kernel text at the start of a line: " + line);
    }
    assertTrue(text.contains("\n" + " ".repeat(18) + "FAILED [kernel.error] spoofed::line on cpu\n"), "a kernel's line break is indented: " + text);
  }

  @Test
  void onATerminalTheProgressLineShowsTheOpNameInertAndKeepsOnlyItsOwnSequences() {
    String text = console(true, hostile("ns::op" + TERMINAL, "boom"));
    String own = text.replace("\r\u001b[2K", "");
    assertFalse(RAW.matcher(own).find(), "only the harness's own clear-line sequences: " + text);
    assertTrue(text.startsWith("\r\u001b[2Kops 0/1 | ns::op\\x1b[2J\\x1b]0;all passed\\x07\\x1b]8;;https://example.in… | "), text);
  }

  @Test
  void aFactOf200KbIsCutToAFewThousandCharactersSayingWhereTheRestIs() {
    String huge = ("\u001b[2K\r" + "A".repeat(994)).repeat(200);
    String text = console(false, hostile("ns::huge", huge));
    assertFalse(RAW.matcher(text).find());
    int longest = text.lines().mapToInt(String::length).max().orElse(0);
    assertTrue(longest <= 5000, "longest line " + longest);
    assertTrue(text.length() < 10_000, "the console shows a few thousand characters of 200 KB: " + text.length());
    int kept = TerminalText.fit("raised: " + huge, true, HumanText.FACT_LIMIT);
    assertTrue(text.contains(" (… " + (huge.length() + "raised: ".length() - kept)
        + " more characters; the whole text is in opcheck-report.json)"), text);
  }
}
