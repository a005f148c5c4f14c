package dev.opcheck4j.run.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuntimesTests {
  private static final String M2 = "/r/org/bytedeco/";

  @Test
  void aRuntimeModulesClassPathNamesItsVersionsByItsPytorchJar(@TempDir Path clone) throws Exception {
    Path module = Files.createDirectories(clone.resolve("harness/runtimes/2.10/target"));
    Files.writeString(module.resolve("runtime-classpath.txt"), String.join(File.pathSeparator,
        M2 + "pytorch/2.10.0-1.5.13/pytorch-2.10.0-1.5.13.jar", M2 + "pytorch/2.10.0-1.5.13/pytorch-2.10.0-1.5.13-linux-x86_64.jar",
        M2 + "javacpp/1.5.13/javacpp-1.5.13.jar") + "\n");
    Files.createDirectories(clone.resolve("harness/runtimes/2.99")); // a module not built: no runtime
    List<LibtorchRuntime> found = Runtimes.modulesUnder(clone);
    assertEquals(1, found.size());
    assertEquals("2.10.0", found.get(0).torch());
    assertEquals("1.5.13", found.get(0).presets());
    assertEquals(3, found.get(0).classPath().size());
  }

  @Test
  void aWorkersClassPathHasTheRuntimesPresetsInPlaceOfTheParents() {
    String parent = String.join(File.pathSeparator, "/w/harness/target/classes", M2 + "javacpp/1.5.14/javacpp-1.5.14.jar",
        M2 + "pytorch/2.13.0-1.5.14/pytorch-2.13.0-1.5.14-linux-x86_64.jar", M2 + "openblas/0.3.31-1.5.13/openblas-0.3.31-1.5.13.jar",
        "/m2/com/fasterxml/jackson-core-2.20.1.jar");
    LibtorchRuntime old = new LibtorchRuntime("2.10.0", "1.5.13",
        List.of(Path.of(M2 + "pytorch/2.10.0-1.5.13/pytorch-2.10.0-1.5.13.jar"), Path.of(M2 + "javacpp/1.5.13/javacpp-1.5.13.jar")));
    assertEquals(List.of(M2 + "pytorch/2.10.0-1.5.13/pytorch-2.10.0-1.5.13.jar", M2 + "javacpp/1.5.13/javacpp-1.5.13.jar",
        "/w/harness/target/classes", "/m2/com/fasterxml/jackson-core-2.20.1.jar"),
        List.of(old.workerClassPath(parent).split(File.pathSeparator)));
    assertEquals(parent, Runtimes.own().workerClassPath(parent));
  }

  @Test
  void runtimesAreReadOldestFirstEachOnceAndAnUnknownOneIsNamed() {
    String own = Runtimes.own().torch();
    assertEquals(List.of(own), Runtimes.parse(own + ", " + own));
    assertTrue(Runtimes.isDefault(List.of()));
    assertTrue(Runtimes.isDefault(List.of(own)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Runtimes.parse(own + ",9.9.9"));
    assertEquals("no runtime 9.9.9", e.getMessage());
    assertEquals(-1, Integer.signum(Runtimes.VERSION_ORDER.compare("2.9.1", "2.10.0")));
  }
}
