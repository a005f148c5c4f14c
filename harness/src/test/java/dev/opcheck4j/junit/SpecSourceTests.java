package dev.opcheck4j.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spec errors under mvn test name the file under src/test/resources, not Maven's copy in target/test-classes. */
class SpecSourceTests {
  @Test
  void anErrorInTheCopyNamesTheSourceFile(@TempDir Path project) throws Exception {
    String yaml = "library: ../../native/libx.so\nops:\n  - op: x::y\n    exmples: []\n";
    Path source = Files.createDirectories(project.resolve("src/test/resources/opcheck")).resolve("x.yaml");
    Path copy = Files.createDirectories(project.resolve("target/test-classes/opcheck")).resolve("x.yaml");
    Files.writeString(source, yaml);
    Files.writeString(copy, yaml);
    String error = copy + ":4:5: unknown key \"exmples\" in an op entry";
    assertEquals(source + ":4:5: unknown key \"exmples\" in an op entry", SpecDiscovery.atSource(error, copy));
  }

  @Test
  void aCopyThatDiffersFromItsSourceOrHasNoneIsNamedAsItIs(@TempDir Path project) throws Exception {
    Path copy = Files.createDirectories(project.resolve("target/test-classes/opcheck")).resolve("x.yaml");
    Files.writeString(copy, "ops: []\n");
    String error = copy + ":1:1: no library";
    assertEquals(error, SpecDiscovery.atSource(error, copy), "no source beside it");
    Path source = Files.createDirectories(project.resolve("src/test/resources/opcheck")).resolve("x.yaml");
    Files.writeString(source, "ops: [] # edited since the copy was made\n");
    assertEquals(error, SpecDiscovery.atSource(error, copy), "its lines and columns would not be the source's");
    Path elsewhere = Files.writeString(project.resolve("y.yaml"), "ops: []\n");
    assertEquals("y", SpecDiscovery.atSource("y", elsewhere));
  }
}
