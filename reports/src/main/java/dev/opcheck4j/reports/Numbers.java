package dev.opcheck4j.reports;

/** Text for people: durations and clipped long values. */
final class Numbers {
  private Numbers() {}

  /** {@code 850 ms}, {@code 3.5 s}, {@code 2 min 5 s}. */
  static String duration(long ms) {
    if (ms < 1000) {
      return ms + " ms";
    }
    if (ms < 60_000) {
      return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
    }
    return (ms / 60_000) + " min " + (ms % 60_000) / 1000 + " s";
  }

  /** {@code s} when at most {@code max} characters, else its start and how much was cut. */
  static String clip(String s, int max) {
    if (s.length() <= max) {
      return s;
    }
    return s.substring(0, max) + "… (" + (s.length() - max) + " more characters)";
  }
}
