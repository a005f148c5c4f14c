package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The three walks of docs/architecture.md (a spec file to the worker, a generated input to a report
 * row, a worker's death to {@code kernel.crash}) against the code: each method a walk names is declared
 * by its class in the sources, and the table of hops and classes counts the walks as written. So the
 * walk, and its numbers, can be checked by anyone with the repository.
 */
class ArchitectureWalksTests {
  private static final Path DOC = Path.of("../docs/architecture.md");
  private static final List<Path> SOURCES = List.of(Path.of("src/main/java"), Path.of("api/src/main/java"));
  private static final Pattern HOP = Pattern.compile("`([A-Z][A-Za-z]*)\\.([a-z][A-Za-z]*)`");

  /** The section's lines. */
  private static List<String> section() throws IOException {
    List<String> lines = Files.readAllLines(DOC);
    int from = lines.indexOf("## Three walks");
    assertTrue(from >= 0, "docs/architecture.md has a section \"## Three walks\"");
    List<String> out = new ArrayList<>();
    for (String l : lines.subList(from + 1, lines.size())) {
      if (l.startsWith("## ")) {
        break;
      }
      out.add(l);
    }
    return out;
  }

  /** Each walk's lines, by its name (§1...): the walks as they are ({@code after}), or as they were. */
  private static Map<String, List<String>> walks(boolean after) throws IOException {
    Map<String, List<String>> walks = new LinkedHashMap<>();
    String walk = null;
    for (String l : section()) {
      Matcher head = Pattern.compile(after ? "^\\*\\*(§\\d) " : "^- (§\\d) before:").matcher(l);
      if (head.find()) {
        walk = head.group(1);
        walks.put(walk, new ArrayList<>());
      } else if (walk != null && (after ? l.matches("^\\d+\\. .*") : l.startsWith("  - "))) {
        walks.get(walk).add(l);
      } else if (walk != null && !l.isBlank() && !(after && l.startsWith("**"))) {
        walk = null;
      }
    }
    return walks;
  }

  private static List<String[]> hops(List<String> lines) {
    List<String[]> hops = new ArrayList<>();
    for (String l : lines) {
      Matcher m = HOP.matcher(l);
      while (m.find()) {
        hops.add(new String[] {m.group(1), m.group(2)});
      }
    }
    return hops;
  }

  /** Whether a source file that declares type {@code type} declares a method {@code method}. */
  private static boolean declared(String type, String method) throws IOException {
    Pattern declares = Pattern.compile("\\b(class|record|interface|enum) " + type + "\\b");
    Pattern defines = Pattern.compile("(?m)^\\s*(?!return |new |throw )[^=;(]*[\\w>\\]] " + method + "\\(");
    for (Path root : SOURCES) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          String text = Files.readString(f);
          if (declares.matcher(text).find() && defines.matcher(text).find()) {
            return true;
          }
        }
      }
    }
    return false;
  }

  @Test
  void everyMethodOfTheWalksIsDeclaredByItsClass() throws IOException {
    Map<String, List<String>> walks = walks(true);
    assertEquals(Set.of("§1", "§2", "§3"), walks.keySet());
    List<String> missing = new ArrayList<>();
    for (List<String> lines : walks.values()) {
      assertFalse(lines.isEmpty());
      for (String[] hop : hops(lines)) {
        if (!declared(hop[0], hop[1])) {
          missing.add(hop[0] + "." + hop[1]);
        }
      }
    }
    assertEquals(List.of(), missing, "methods the walks name that the sources do not declare");
  }

  @Test
  void theTableCountsTheWalksAsWritten() throws IOException {
    Map<String, List<String>> after = walks(true);
    Map<String, List<String>> before = walks(false);
    int rows = 0;
    for (String l : section()) {
      Matcher row = Pattern.compile("^\\| (§\\d) \\| (\\d+) \\| (\\d+) \\| (\\d+) \\| (\\d+) \\|").matcher(l);
      if (row.find()) {
        rows++;
        String walk = row.group(1);
        assertEquals(List.of(row.group(2), row.group(3), row.group(4), row.group(5)), List.of(
            String.valueOf(arrows(before.get(walk))), String.valueOf(classes(before.get(walk))),
            String.valueOf(arrows(after.get(walk))), String.valueOf(classes(after.get(walk)))), walk);
      }
    }
    assertEquals(3, rows);
  }

  private static int arrows(List<String> lines) {
    return lines.stream().mapToInt(l -> l.split("→", -1).length - 1).sum();
  }

  private static int classes(List<String> lines) {
    Set<String> types = new LinkedHashSet<>();
    hops(lines).forEach(h -> types.add(h[0]));
    return types.size();
  }
}
