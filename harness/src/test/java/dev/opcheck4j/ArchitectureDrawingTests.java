package dev.opcheck4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture/packages.svg is the drawing of the harness's compiled classes ({@link ArchitectureDrawing}):
 * rewrite it with {@code -Dopcheck4j.drawing.write=true}. The same renderer draws another build's classes
 * ({@code -Dopcheck4j.drawing.classes=DIR,DIR -Dopcheck4j.drawing.out=FILE}), which is how
 * docs/architecture/packages-before-41.svg was made (docs/architecture.md says the command).
 */
class ArchitectureDrawingTests {
  private static final Path DRAWING = Path.of("../docs/architecture/packages.svg");
  static final String TITLE = "opcheck4j harness: its packages and their imports";

  @Test
  void theCommittedDrawingIsTheDrawingOfTheseClasses() throws IOException {
    String svg = ArchitectureDrawing.svg(ArchitectureDrawing.of(
        new ClassFileImporter().importPaths(Path.of("target/classes"), Path.of("api/target/classes"))), TITLE);
    if (Boolean.getBoolean("opcheck4j.drawing.write")) {
      Files.createDirectories(DRAWING.getParent());
      Files.writeString(DRAWING, svg, StandardCharsets.UTF_8);
    }
    if (!Files.exists(DRAWING) || !Files.readString(DRAWING, StandardCharsets.UTF_8).equals(svg)) {
      fail("docs/architecture/packages.svg is not the drawing of the compiled classes: rewrite it with"
          + " -Dopcheck4j.drawing.write=true (mvn -pl harness -am test -Dtest=ArchitectureDrawingTests)");
    }
  }

  /** Draws the classes of the dirs {@code opcheck4j.drawing.classes} names into {@code opcheck4j.drawing.out}. */
  @Test
  void drawsTheClassesOfAnotherBuildWhenAsked() throws IOException {
    String dirs = System.getProperty("opcheck4j.drawing.classes");
    String out = System.getProperty("opcheck4j.drawing.out");
    Assumptions.assumeTrue(dirs != null && out != null, "no other build's classes named");
    Path[] paths = Arrays.stream(dirs.split(",")).map(String::strip).map(Path::of).toArray(Path[]::new);
    String title = System.getProperty("opcheck4j.drawing.title", TITLE);
    ArchitectureDrawing.Graph graph = ArchitectureDrawing.of(new ClassFileImporter().importPaths(paths));
    assertTrue(graph.rooms().size() > 3, "classes of dev.opcheck4j were found in " + dirs);
    Files.writeString(Path.of(out), ArchitectureDrawing.svg(graph, title), StandardCharsets.UTF_8);
  }

  @Test
  void aCycleIsRedAndTheRestIsLaidOutInRowsThatPointDown() {
    ArchitectureDrawing.Graph g = new ArchitectureDrawing.Graph(Map.of("a", 2, "b", 1, "c", 3, "d", 1),
        Map.of("a", Map.of("b", 2), "b", Map.of("a", 1, "c", 1), "d", Map.of("c", 1)));
    assertEquals(List.of(List.of("a", "b")), g.cycles());
    assertEquals(Set.of("a", "b"), g.inCycles());
    assertEquals(4, g.arrowCount());
    String svg = ArchitectureDrawing.svg(g, "t");
    assertTrue(svg.contains("4 packages (boxes: classes in each), 4 imports (arrows: classes importing), 1 cycles over 2 packages"), svg);
    assertEquals(2, count(svg, "marker-end=\"url(#arrow-red)\""), "the two arrows of the cycle are red");
    assertEquals(2, count(svg, "marker-end=\"url(#arrow)\""), "the other two are not");
    assertEquals(2, count(svg, "fill=\"#fde2e2\""), "the two rooms of the cycle are red");
    assertEquals(svg, ArchitectureDrawing.svg(g, "t"), "the same graph, the same bytes");
  }

  @Test
  void theCheckFamiliesAreOneRoomAndTheRegistryItsOwn() {
    assertEquals("checks.*", ArchitectureDrawing.room("dev.opcheck4j.checks.memory"));
    assertEquals("checks.*", ArchitectureDrawing.room("dev.opcheck4j.checks.memory.deep"));
    assertEquals("checks.builtin", ArchitectureDrawing.room("dev.opcheck4j.checks.builtin"));
    assertEquals("checks", ArchitectureDrawing.room("dev.opcheck4j.checks"));
    assertEquals("run.session", ArchitectureDrawing.room("dev.opcheck4j.run.session"));
  }

  private static int count(String s, String part) {
    int n = 0;
    for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }
}
