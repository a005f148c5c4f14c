package dev.opcheck4j.cli;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** "Did you mean": the closest known word within a small edit distance. */
final class Suggestions {
  private Suggestions() {}

  /** The known word closest to {@code typed}, if one is within a third of its length (at least 2 edits). */
  static Optional<String> closest(String typed, List<String> known) {
    int limit = Math.max(2, typed.length() / 3);
    return known.stream()
        .filter(k -> distance(typed, k) <= limit)
        .min(Comparator.comparingInt((String k) -> distance(typed, k)));
  }

  /** {@code "; did you mean X?"} or the empty string. */
  static String didYouMean(String typed, List<String> known) {
    return closest(typed, known).map(k -> "; did you mean " + k + "?").orElse("");
  }

  /** Levenshtein distance with adjacent transpositions counted as one edit. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
