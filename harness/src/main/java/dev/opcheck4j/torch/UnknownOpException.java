package dev.opcheck4j.torch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/** An operator name that is not registered; carries the nearest registered names. */
public final class UnknownOpException extends Exception {
  private final String name;
  private final List<String> suggestions;

  public UnknownOpException(String name, List<String> suggestions, String where) {
    super(
        "operator "
            + name
            + " is not registered"
            + (where.isEmpty() ? "" : " by " + where)
            + (suggestions.isEmpty() ? "" : "; did you mean " + String.join(", ", suggestions) + "?"));
    this.name = name;
    this.suggestions = List.copyOf(suggestions);
  }

  public String name() {
    return name;
  }

  public List<String> suggestions() {
    return suggestions;
  }

  /** Up to {@code limit} names closest to {@code name} by edit distance, closest first. */
  public static List<String> nearest(String name, Collection<String> names, int limit) {
    List<String> sorted = new ArrayList<>(names);
    sorted.sort(Comparator.comparingInt((String n) -> distance(name, n)).thenComparing(n -> n));
    List<String> out = new ArrayList<>();
    for (String n : sorted) {
      if (out.size() == limit || distance(name, n) > Math.max(3, name.length() / 2)) {
        break;
      }
      out.add(n);
    }
    return out;
  }

  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
