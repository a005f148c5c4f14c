package dev.opcheck4j.reporting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One run per report dir, checked writable before anything runs. */
class ReportDirLockTests {
  @Test
  void aSecondRunIsRefusedNamingTheHolderAndTheDirIsFreeAfter(@TempDir Path dir) throws Exception {
    try (ReportDirLock first = ReportDirLock.acquire(dir, "./opcheck check --spec a.json")) {
      assertNull(first.note());
      ReportDirLock.Refused e = assertThrows(ReportDirLock.Refused.class, () -> ReportDirLock.acquire(dir, "other"));
      assertEquals("report dir " + dir + " is in use by pid " + ProcessHandle.current().pid()
          + " (./opcheck check --spec a.json); wait for that run to end or give another --report-dir", e.getMessage());
    }
    try (ReportDirLock again = ReportDirLock.acquire(dir, "again")) {
      assertNull(again.note(), "a run that ended leaves nothing to take over");
    }
  }

  @Test
  void theLockOfARunThatDiedIsTakenOverWithANote(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve(ReportDirLock.NAME), "999999\n./opcheck check --spec dead.json\n");
    try (ReportDirLock lock = ReportDirLock.acquire(dir, "now")) {
      assertEquals("report dir " + dir + ": took over the lock of pid 999999 (./opcheck check --spec dead.json), "
          + "which is no longer running", lock.note());
    }
  }

  @Test
  void aPathUnderAFileIsRefusedInOneLine(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("f"), "");
    ReportDirLock.Refused e = assertThrows(ReportDirLock.Refused.class,
        () -> ReportDirLock.acquire(file.resolve("reports"), "x"));
    assertTrue(e.getMessage().startsWith("report dir " + file.resolve("reports") + " cannot be created"), e.getMessage());
    assertEquals(1, e.getMessage().lines().count());
  }
}
