package dev.opcheck4j.cli;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ResultText;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Console text for people: numbers rounded ({@code 1.1e-16}), long values wrapped, durations short. */
final class HumanText {
  static final int WIDTH = 110;
  /** A decimal with five or more fraction digits, or any number in E notation. */
  private static final Pattern LONG_NUMBER =
      Pattern.compile("(?<![\\w.])-?\\d+(?:\\.\\d{5,}(?:[eE][-+]?\\d+)?|(?:\\.\\d+)?[eE][-+]?\\d+)(?![\\w.])");

  private HumanText() {}

  /** Every long number in {@code text} rounded: tiny and huge ones to 2 significant digits, others to 4. */
  static String roundNumbers(String text) {
    Matcher m = LONG_NUMBER.matcher(text);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(sb, Matcher.quoteReplacement(round(m.group())));
    }
    m.appendTail(sb);
    return sb.toString();
  }

  static String round(String number) {
    double v;
    try {
      v = Double.parseDouble(number);
    } catch (NumberFormatException e) {
      return number;
    }
    if (!Double.isFinite(v) || v == 0) {
      return number.contains("e") || number.contains("E") ? String.valueOf(v) : number;
    }
    double abs = Math.abs(v);
    if (abs < 1e-3 || abs >= 1e6) {
      String s = String.format(Locale.ROOT, "%.1e", v); // 1.1e-16
      String mantissa = s.substring(0, s.indexOf('e')).replaceAll("\\.0$", "");
      int exponent = Integer.parseInt(s.substring(s.indexOf('e') + 1));
      return mantissa + "e" + exponent;
    }
    return new BigDecimal(v).round(new MathContext(4)).stripTrailingZeros().toPlainString();
  }

  /** A result in the message shape of STYLE.md, numbers rounded and long values wrapped under their key. */
  static String render(CheckResult r, List<String> devices) {
    return ResultText.render(r, r.library() != null ? r.library() : r.op(), devices, (f, indent) -> String.join(
        "\n" + indent, wrap(f.key().equals("rerun") ? f.value() : roundNumbers(f.value()), WIDTH - indent.length())));
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
