package dev.opcheck4j.api;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Numbers in text as people read them ({@code 1.1e-16}, {@code 0.4123}), the same in every format
 * written for people: the console and the Markdown summary round alike. Machine formats keep the
 * exact values.
 */
public final class NumberText {
  /** A decimal with five or more fraction digits, or any number in E notation. */
  private static final Pattern LONG_NUMBER =
      Pattern.compile("(?<![\\w.])-?\\d+(?:\\.\\d{5,}(?:[eE][-+]?\\d+)?|(?:\\.\\d+)?[eE][-+]?\\d+)(?![\\w.])");

  private NumberText() {}

  /** Every long number in {@code text} rounded by {@link #round}; other text, and short numbers, as they are. */
  public static String roundAll(String text) {
    Matcher m = LONG_NUMBER.matcher(text);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(sb, Matcher.quoteReplacement(round(m.group())));
    }
    m.appendTail(sb);
    return sb.toString();
  }

  /** One number rounded: tiny and huge ones to 2 significant digits in E notation, others to 4; text that is no number as it is. */
  public static String round(String number) {
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
}
