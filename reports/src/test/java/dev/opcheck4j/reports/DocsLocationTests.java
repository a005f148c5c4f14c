package dev.opcheck4j.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.DocsLocation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Report links to check pages are absolute or absent: a relative one points nowhere from target/opcheck/. */
class DocsLocationTests {
  @Test
  void anAbsoluteUrlIsKeptWithItsSlash() {
    assertEquals(Optional.of("https://example.org/checks/"), DocsLocation.of("https://example.org/checks", "/nowhere"));
    assertEquals("https://example.org/checks/fake.metadata.md", DocsLocation.page("https://example.org/checks/", "fake.metadata"));
  }

  @Test
  void theClonesPagesAreAFileUrlAndNoCloneIsNoLink(@TempDir Path home) throws Exception {
    assertEquals(Optional.empty(), DocsLocation.of(null, home.toString()), "a folder without docs/checks/ is no clone");
    Path pages = Files.createDirectories(home.resolve("docs/checks"));
    assertEquals(Optional.of(pages.toUri().toString()), DocsLocation.of("", home.toString()));
    assertEquals(true, pages.toUri().toString().startsWith("file:/") && pages.toUri().toString().endsWith("/checks/"));
    assertEquals(Optional.empty(), DocsLocation.of(null, null));
  }

  @Test
  void aPathIsMadeAbsolute(@TempDir Path dir) {
    assertEquals(Optional.of(dir.toUri().toString()), DocsLocation.of(dir.toString(), null));
    String relative = DocsLocation.of("docs/checks", null).orElseThrow();
    assertEquals(true, relative.startsWith("file:/") && relative.endsWith("/docs/checks/"), relative);
  }
}
