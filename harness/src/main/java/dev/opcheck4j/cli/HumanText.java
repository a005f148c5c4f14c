package dev.opcheck4j.cli;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.NumberText;
import dev.opcheck4j.api.ResultText;
import dev.opcheck4j.api.TerminalText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Console text for people: numbers rounded ({@code 1.1e-16}), long values wrapped, durations short,
 * and untrusted text inert: its control characters visible ({@link TerminalText}), a fact's value cut
 * at {@link #FACT_LIMIT} characters and a name at {@link #NAME_LIMIT}, so no console line is longer than
 * a few thousand characters.
 */
final class HumanText {
  static final int WIDTH = 110;
  static final int FACT_LIMIT = 3000;
  static final int NAME_LIMIT = 300;

  private HumanText() {}

  /** Every long number in {@code text} rounded, as every format for people rounds ({@link NumberText}). */
  static String roundNumbers(String text) {
    return NumberText.roundAll(text);
  }

  static String round(String number) {
    return NumberText.round(number);
  }

  /**
   * A result in the message shape of STYLE.md, numbers rounded and long values wrapped under their key.
   *
   * @param reportDir whether the run writes opcheck-report.json, where a value cut here is whole
   */
  static String render(CheckResult r, List<String> devices, boolean reportDir) {
    return ResultText.render(r, r.library() != null ? r.library() : r.op(), devices, new ResultText.Values() {
      @Override
      public String show(Fact f, String indent) {
        String value = fact(f.value(), reportDir);
        return String.join("\n" + indent, wrap(f.key().equals("rerun") ? value : roundNumbers(value), WIDTH - indent.length()));
      }

      @Override
      public String name(String text) {
        return HumanText.name(text);
      }
    });
  }

  /**
   * A fact's value for the console: control characters visible (line breaks kept, for the caller to
   * indent), cut after {@link #FACT_LIMIT} characters with a note saying how much more there is.
   */
  static String fact(String value, boolean reportDir) {
    int kept = TerminalText.fit(value, true, FACT_LIMIT);
    String shown = TerminalText.visible(value.substring(0, kept), true);
    if (kept == value.length()) {
      return shown;
    }
    return shown + " (… " + (value.length() - kept) + " more characters; "
        + (reportDir ? "the whole text is in opcheck-report.json)" : "--report-dir DIR keeps the whole text in opcheck-report.json)");
  }

  /** Untrusted text that must stay on one line (an op name, a file name, an error): control characters visible, cut at {@link #NAME_LIMIT}. */
  static String name(String text) {
    return name(text, NAME_LIMIT);
  }

  /** Untrusted text that must stay on one line: control characters visible, cut at {@code limit}. */
  static String name(String text, int limit) {
    int kept = TerminalText.fit(text, false, limit);
    return TerminalText.visible(text.substring(0, kept)) + (kept == text.length() ? "" : "…");
  }

  /** Splits {@code text} into lines of at most {@code width} characters at spaces (a longer word stays whole). */
  static List<String> wrap(String text, int width) {
    List<String> lines = new ArrayList<>();
    for (String paragraph : text.split("\n", -1)) {
      StringBuilder line = new StringBuilder();
      for (String word : paragraph.split(" ", -1)) {
        if (line.length() > 0 && line.length() + 1 + word.length() > width) {
          lines.add(line.toString().stripTrailing());
          line.setLength(0);
        } else if (line.length() > 0) {
          line.append(' ');
        }
        line.append(word);
      }
      lines.add(line.toString());
    }
    return lines;
  }

  /** {@code 850 ms}, {@code 3.5 s}, {@code 2 min 05 s}. */
  static String duration(long ms) {
    if (ms < 1000) {
      return ms + " ms";
    }
    if (ms < 60_000) {
      return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
    return String.format(Locale.ROOT, "%d min %02d s", ms / 60_000, ms % 60_000 / 1000);
  }
}
