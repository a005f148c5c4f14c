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

  /** Levenshtein distance with adjacent transpositions counted as one edit (the spec reader's, one definition). */
  static int distance(String a, String b) {
    return dev.opcheck4j.spec.NearestName.distance(a, b);
  }
}
