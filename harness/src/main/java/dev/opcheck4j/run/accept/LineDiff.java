package dev.opcheck4j.run.accept;

import java.util.ArrayList;
import java.util.List;

/** A unified diff of two small texts (an expected-failures file before and after accept mode), by longest common subsequence. */
final class LineDiff {
  private static final int CONTEXT = 2;

  private LineDiff() {}

  /** {@code --- name}, {@code +++ name}, then hunks {@code @@ -a,b +c,d @@} with two lines of context. */
  static List<String> unified(String name, String before, String after) {
    List<String> a = before.lines().toList();
    List<String> b = after.lines().toList();
    int[][] lcs = new int[a.size() + 1][b.size() + 1];
    for (int i = a.size() - 1; i >= 0; i--) {
      for (int j = b.size() - 1; j >= 0; j--) {
        lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    // the edit script: ' ' kept, '-' only before, '+' only after, each with its line numbers
    List<Character> ops = new ArrayList<>();
    List<int[]> at = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < a.size() || j < b.size()) {
      if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
        ops.add(' ');
        at.add(new int[] {i++, j++});
      } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
        ops.add('+');
        at.add(new int[] {i, j++});
      } else {
        ops.add('-');
        at.add(new int[] {i++, j});
      }
    }
    List<String> out = new ArrayList<>();
    int k = 0;
    while (k < ops.size()) {
      if (ops.get(k) == ' ') {
        k++;
        continue;
      }
      int start = Math.max(0, k - CONTEXT);
      int end = k;
      // a hunk runs on while the next change is within twice the context
      for (int m = k; m < ops.size(); m++) {
        if (ops.get(m) != ' ') {
          end = m;
        } else if (m - end > 2 * CONTEXT) {
          break;
        }
      }
      end = Math.min(ops.size() - 1, end + CONTEXT);
      int oldFrom = at.get(start)[0];
      int newFrom = at.get(start)[1];
      int oldCount = 0;
      int newCount = 0;
      List<String> body = new ArrayList<>();
      for (int m = start; m <= end; m++) {
        char c = ops.get(m);
        String line = c == '+' ? b.get(at.get(m)[1]) : a.get(at.get(m)[0]);
        body.add(c + line);
        oldCount += c == '+' ? 0 : 1;
        newCount += c == '-' ? 0 : 1;
      }
      if (out.isEmpty()) {
        out.add("--- " + name);
        out.add("+++ " + name);
      }
      out.add("@@ -" + (oldFrom + 1) + "," + oldCount + " +" + (newFrom + 1) + "," + newCount + " @@");
      out.addAll(body);
      k = end + 1;
    }
    return out;
  }
}
