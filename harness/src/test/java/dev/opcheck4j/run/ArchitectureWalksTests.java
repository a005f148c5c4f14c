package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The three walks of docs/architecture.md (a spec file to the worker, a generated input to a report
 * row, a worker's death to {@code kernel.crash}) against the code: each hop of a walk is a real call
 * in the compiled classes (ArchUnit's call graph: the first method calls the second, directly or
 * through code of its own class, or the second calls the first and the walk follows its return; a
 * constructor is {@code Class.new}), and the table of hops and classes counts the walks as written.
 * So the walk, and its numbers, can be checked by anyone with the repository.
 */
class ArchitectureWalksTests {
  private static final Path DOC = Path.of("../docs/architecture.md");
  private static final Pattern HOP = Pattern.compile("`([A-Z][A-Za-z0-9]*)\\.([a-z][A-Za-z0-9]*)`");

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
      Matcher head = Pattern.compile(after ? "^\\*\\*(§\\d) " : "^- (§\\d) before\\b").matcher(l);
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

  private static JavaClasses harness;

  @BeforeAll
  static void importHarness() {
    harness = new ClassFileImporter().importPaths(Path.of("target/classes"), Path.of("api/target/classes"));
  }

  /** The classes a walk names by {@code type}: a top-level or nested class of that simple name. */
  private static List<JavaClass> named(String type) {
    return harness.stream().filter(c -> c.getSimpleName().equals(type)).toList();
  }

  /**
   * What {@code method} of {@code c} reaches: its calls and method references, and those of the code
   * of its own class it goes through (a private helper, a lambda, an anonymous class, a constructor),
   * as one hop.
   */
  private static Set<JavaAccess<?>> reached(JavaClass c, String method) {
    Set<JavaAccess<?>> out = new LinkedHashSet<>();
    Deque<JavaCodeUnit> todo = new ArrayDeque<>();
    Set<JavaCodeUnit> seen = new HashSet<>();
    for (JavaCodeUnit u : c.getCodeUnits()) {
      String name = u.getName().equals("<init>") ? "new" : u.getName();
      if (name.equals(method) || name.startsWith("lambda$" + method + "$")) {
        todo.add(u);
      }
    }
    while (!todo.isEmpty()) {
      JavaCodeUnit u = todo.poll();
      if (!seen.add(u)) {
        continue;
      }
      List<JavaAccess<?>> accesses = new ArrayList<>();
      accesses.addAll(u.getMethodCallsFromSelf());
      accesses.addAll(u.getConstructorCallsFromSelf());
      accesses.addAll(u.getMethodReferencesFromSelf());
      for (JavaAccess<?> a : accesses) {
        out.add(a);
        JavaClass owner = a.getTargetOwner();
        if (owner.equals(c)) {
          owner.getCodeUnits().stream().filter(t -> t.getName().equals(a.getName()) || t.getName().startsWith("lambda$"))
              .forEach(todo::add);
        } else if (owner.isAnonymousClass() && owner.getName().startsWith(c.getName() + "$")) {
          todo.addAll(owner.getCodeUnits());
        }
      }
    }
    return out;
  }

  /** Whether {@code from.fromMethod} calls {@code to.toMethod}: on that class, or on a type it implements. */
  private static boolean calls(String from, String fromMethod, String to, String toMethod) {
    for (JavaClass c : named(from)) {
      for (JavaAccess<?> a : reached(c, fromMethod)) {
        String target = a.getName().equals("<init>") ? "new" : a.getName();
        if (target.equals(toMethod) && named(to).stream().anyMatch(t -> t.isAssignableTo(a.getTargetOwner().getName()))) {
          return true;
        }
      }
    }
    return false;
  }

  @Test
  void eachHopOfTheWalksIsARealCallOrItsReturn() throws IOException {
    Map<String, List<String>> walks = walks(true);
    assertEquals(Set.of("§1", "§2", "§3"), walks.keySet());
    List<String> notCalls = new ArrayList<>();
    for (List<String> lines : walks.values()) {
      assertFalse(lines.isEmpty());
      for (String line : lines) {
        List<String[]> hops = hops(List.of(line));
        for (int i = 1; i < hops.size(); i++) {
          String[] a = hops.get(i - 1);
          String[] b = hops.get(i);
          if (!calls(a[0], a[1], b[0], b[1]) && !calls(b[0], b[1], a[0], a[1])) {
            notCalls.add(a[0] + "." + a[1] + " → " + b[0] + "." + b[1]);
          }
        }
      }
    }
    assertEquals(List.of(), notCalls, "hops of the walks that are neither a call nor the return of one");
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
