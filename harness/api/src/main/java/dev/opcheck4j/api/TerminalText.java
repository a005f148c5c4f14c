package dev.opcheck4j.api;

/**
 * Untrusted text (kernel messages, op names, spec strings, file names, worker output) as a terminal
 * may show it: every character that would drive the terminal is written as a visible escape, so a
 * kernel can neither clear the screen, retitle the window, add a hyperlink, move the cursor, nor
 * overwrite or hide a line of a CI log. C0 controls and DEL become {@code \x1b}, {@code \r},
 * {@code \t}, {@code \b}, {@code \n}; C1 controls (U+0080 to U+009F, which some terminals read as
 * CSI and OSC) and the characters that reorder or break lines (bidi overrides and isolates, U+2028,
 * U+2029) become {@code \u009b}. Everything else, backslashes included, is written as it is.
 */
public final class TerminalText {
  private TerminalText() {}

  /** {@code text} with every control character visible, line breaks included: one line. */
  public static String visible(String text) {
    return visible(text, false);
  }

  /**
   * {@code text} with every control character visible.
   *
   * @param lines keep {@code \n} as a line break (the caller indents what follows it, so no line of
   *     {@code text} can pass for a line of the harness); every other control character is escaped
   */
  public static String visible(String text, boolean lines) {
    StringBuilder sb = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      sb.append(visible(text.charAt(i), lines));
    }
    return sb.toString();
  }

  /**
   * How many leading chars of {@code text} fit in {@code limit} characters once made visible, never
   * splitting a surrogate pair: {@code text.length()} when all of it fits.
   */
  public static int fit(String text, boolean lines, int limit) {
    int shown = 0;
    for (int i = 0; i < text.length(); i++) {
      shown += visible(text.charAt(i), lines).length();
      if (shown > limit) {
        return i > 0 && Character.isHighSurrogate(text.charAt(i - 1)) ? i - 1 : i;
      }
    }
    return text.length();
  }

  private static String visible(char c, boolean lines) {
    return switch (c) {
      case '\n' -> lines ? "\n" : "\\n";
      case '\r' -> "\\r";
      case '\t' -> "\\t";
      case '\b' -> "\\b";
      default -> {
        if (c < 0x20 || c == 0x7f) {
          yield String.format("\\x%02x", (int) c);
        }
        if (c >= 0x80 && c <= 0x9f || c == 0x061c || c == 0x200e || c == 0x200f || c >= 0x2028 && c <= 0x202e
            || c >= 0x2066 && c <= 0x2069) {
          yield String.format("\\u%04x", (int) c);
        }
        yield String.valueOf(c);
      }
    };
  }
}
