package dev.opcheck4j.run.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When workers get a class-data archive: only where archives are configured and the class path is
 * all jars; the first worker writes it, later ones map it, a failed write is not retried, a crashed
 * writer leaves nothing that would be mapped, and an archive of a rebuilt jar replaces the old one.
 */
class WorkerArchiveTests {
  @TempDir
  Path tmp;
  private Path archives;
  private String classPath;

  @BeforeEach
  void configure() throws IOException {
    archives = tmp.resolve("cds");
    System.setProperty(WorkerArchive.PROPERTY, archives.toString());
    Path a = Files.writeString(tmp.resolve("a.jar"), "a");
    Path b = Files.writeString(tmp.resolve("b.jar"), "b");
    classPath = a + File.pathSeparator + b;
  }

  @AfterEach
  void unconfigure() {
    System.clearProperty(WorkerArchive.PROPERTY);
  }

  @Test
  void noneUnlessConfiguredAndAllJars() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("classes"));
    assertTrue(WorkerArchive.configured(classPath + File.pathSeparator + dir).isEmpty(), "a directory cannot be archived");
    System.clearProperty(WorkerArchive.PROPERTY);
    assertTrue(WorkerArchive.configured(classPath).isEmpty());
  }

  @Test
  void theFirstWorkerWritesItAndLaterOnesMapIt() throws IOException {
    WorkerArchive archive = WorkerArchive.configured(classPath).orElseThrow();
    WorkerArchive.Options first = archive.options();
    assertNotNull(first.writing());
    assertEquals(List.of("-XX:ArchiveClassesAtExit=" + first.writing()), first.jvm());
    assertEquals(List.of(), archive.options().jvm(), "one writer at a time");
    Files.writeString(first.writing(), "archive");
    archive.written(first.writing(), 0);
    WorkerArchive.Options later = archive.options();
    assertNull(later.writing());
    assertEquals(1, later.jvm().size());
    assertTrue(later.jvm().get(0).startsWith("-XX:SharedArchiveFile=" + archives.resolve("worker-")), later.toString());
    assertFalse(Files.exists(first.writing()));
  }

  @Test
  void aWriteThatProducedNothingIsNotTriedAgain() {
    WorkerArchive archive = WorkerArchive.configured(classPath).orElseThrow();
    archive.written(archive.options().writing(), 0);
    assertEquals(new WorkerArchive.Options(List.of(), null), archive.options());
  }

  @Test
  void aWriterThatCrashedLeavesNothingToMap() throws IOException {
    WorkerArchive archive = WorkerArchive.configured(classPath).orElseThrow();
    Path half = archive.options().writing();
    Files.writeString(half, "half an archive");
    archive.written(half, 134);
    assertFalse(Files.exists(half));
    assertNotNull(archive.options().writing(), "the next worker tries again");
  }

  @Test
  void aRebuiltJarGetsItsOwnArchiveAndTheOldOneGoes() throws IOException {
    WorkerArchive before = WorkerArchive.configured(classPath).orElseThrow();
    Path w = before.options().writing();
    Files.writeString(w, "old");
    before.written(w, 0);
    Files.writeString(tmp.resolve("a.jar"), "a, rebuilt");
    WorkerArchive after = WorkerArchive.configured(classPath).orElseThrow();
    Path w2 = after.options().writing();
    assertNotNull(w2, "the old archive is not for these jars");
    Files.writeString(w2, "new");
    after.written(w2, 0);
    try (var files = Files.list(archives)) {
      assertEquals(1, files.filter(p -> p.toString().endsWith(".jsa")).count());
    }
  }
}
