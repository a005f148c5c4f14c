package dev.opcheck4j;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The architecture as rules that fail the build (STYLE 14): no package cycles in the harness, the
 * layering of docs/architecture.md's package table (read from the table, so the sentence cannot drift
 * from the test), a supervisor that imports no check, a link that imports neither the worker nor the
 * supervisor, what an example shows ({@code generate.example}) read from the spec alone, and no file in
 * {@code run/} or {@code generate/} over {@value #MAX_LINES} lines.
 */
class ArchitectureRulesTests {
  static final int MAX_LINES = 350;
  private static final Path DOC = Path.of("../docs/architecture.md");
  private static final List<Path> KEPT_SHORT = List.of(Path.of("src/main/java/dev/opcheck4j/run"),
      Path.of("src/main/java/dev/opcheck4j/generate"));
  private static JavaClasses harness;

  @BeforeAll
  static void importHarness() {
    harness = new ClassFileImporter().importPaths(Path.of("target/classes"), Path.of("api/target/classes"));
    assertTrue(harness.size() > 100, "the harness's and the api's classes are compiled into target/classes");
  }

  @Test
  void noPackageOfTheHarnessIsInACycle() {
    slices().matching("dev.opcheck4j.(**)").should().beFreeOfCycles().check(harness);
  }

  @Test
  void noPackageImportsOneAboveItInTheTableOfArchitectureMd() throws IOException {
    List<List<String>> layers = layers();
    assertTrue(layers.size() >= 10, "the package table of docs/architecture.md has its rows: " + layers);
    for (int i = 1; i < layers.size(); i++) {
      List<String> above = layers.subList(0, i).stream().flatMap(List::stream).toList();
      noClasses().that().resideInAnyPackage(layers.get(i).toArray(String[]::new))
          .should().dependOnClassesThat().resideInAnyPackage(above.toArray(String[]::new))
          .because("docs/architecture.md: a lower row of the package table never imports a higher one")
          .check(harness);
    }
  }

  /**
   * The same rule on the sources' import lines: an import that only a Javadoc link uses leaves no
   * trace in the classes ArchUnit reads, and still ties the file to the package it names.
   */
  @Test
  void noSourceFileImportsAPackageAboveItsOwn() throws IOException {
    List<List<String>> layers = layers();
    List<String> upward = new ArrayList<>();
    Pattern imported = Pattern.compile("(?m)^import (?:static )?(dev\\.opcheck4j\\.[a-z.]*[a-z])\\.[A-Z]");
    try (Stream<Path> files = Files.walk(Path.of("src/main/java/dev/opcheck4j"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        String text = Files.readString(f);
        Matcher own = Pattern.compile("(?m)^package ([\\w.]+);").matcher(text);
        if (!own.find()) {
          continue;
        }
        int row = row(layers, own.group(1));
        Matcher m = imported.matcher(text);
        while (m.find()) {
          int to = row(layers, m.group(1));
          if (row >= 0 && to >= 0 && to < row) {
            upward.add(f.getFileName() + " imports " + m.group(1));
          }
        }
      }
    }
    assertEquals(List.of(), upward, "imports from a lower row of docs/architecture.md's package table to a higher one");
  }

  /** The row of {@code pkg} in {@code layers}, or -1 when no row holds it. */
  private static int row(List<List<String>> layers, String pkg) {
    for (int i = 0; i < layers.size(); i++) {
      for (String pattern : layers.get(i)) {
        boolean deep = pattern.endsWith("..");
        String base = deep ? pattern.substring(0, pattern.length() - 2) : pattern;
        if (pkg.equals(base) || deep && pkg.startsWith(base + ".")) {
          return i;
        }
      }
    }
    return -1;
  }

  @Test
  void theSupervisorImportsNoCheck() {
    noClasses().that().resideInAPackage("dev.opcheck4j.run.supervisor..")
        .should().dependOnClassesThat().resideInAPackage("dev.opcheck4j.checks..")
        .because("the supervisor checks decide what a death means, through CrashMeaning")
        .check(harness);
  }

  @Test
  void theLinkImportsNeitherTheWorkerNorTheSupervisor() {
    noClasses().that().resideInAPackage("dev.opcheck4j.run.link..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.opcheck4j.run.worker..", "dev.opcheck4j.run.supervisor..")
        .because("a payload type never drags worker classes into the parent (JMH's runner/link)")
        .check(harness);
  }

  @Test
  void whatAnExampleShowsIsReadFromTheSpecAlone() {
    noClasses().that().resideInAPackage("dev.opcheck4j.generate.example..")
        .should().dependOnClassesThat().resideOutsideOfPackages("dev.opcheck4j.generate.example..", "dev.opcheck4j.spec..",
            "java..")
        .because("an example's arguments, sizes, dtypes and size relations are plain Java over the spec: no schema, no"
            + " libtorch, no choices (generate draws from them)")
        .check(harness);
  }

  @Test
  void noFileOfRunOrGenerateIsOver350Lines() throws IOException {
    List<String> over = new ArrayList<>();
    for (Path root : KEPT_SHORT) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
          long lines = Files.readAllLines(f).size();
          if (lines > MAX_LINES) {
            over.add(root.getFileName() + "/" + root.relativize(f) + " " + lines);
          }
        }
      }
    }
    assertEquals(List.of(), over, "files of run/ and generate/ over " + MAX_LINES + " lines");
  }

  /**
   * The package table's rows, top to bottom, each as ArchUnit package patterns: a package that another
   * row divides ({@code run} beside {@code run.plan}) is that package alone, any other one with its
   * subpackages ({@code checks} holds {@code checks.memory}).
   */
  static List<List<String>> layers() throws IOException {
    List<String> lines = Files.readAllLines(DOC);
    int from = lines.indexOf("## Packages of the harness");
    assertTrue(from >= 0, "docs/architecture.md has a section \"## Packages of the harness\"");
    List<List<String>> rows = new ArrayList<>();
    Pattern name = Pattern.compile("`([a-z][a-z.]*)`");
    for (String l : lines.subList(from + 1, lines.size())) {
      if (l.startsWith("## ")) {
        break;
      }
      if (!l.startsWith("| `")) {
        continue;
      }
      String first = l.substring(1, l.indexOf('|', 1));
      List<String> names = new ArrayList<>();
      Matcher m = name.matcher(first);
      while (m.find()) {
        names.add(m.group(1));
      }
      rows.add(names);
    }
    List<String> all = rows.stream().flatMap(List::stream).toList();
    return rows.stream().map(row -> row.stream().map(n -> all.stream().anyMatch(o -> o.startsWith(n + "."))
        ? "dev.opcheck4j." + n : "dev.opcheck4j." + n + "..").toList()).toList();
  }
}
