package dev.opcheck4j.run.cache;

import dev.opcheck4j.run.plan.RunBlock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the hash of a large library (libtorch) is remembered: in the cache dir and in the user's cache
 * on this machine, so that a fresh cache dir does not read it again; under the same stamp as before
 * (a change in place is read again), and without a user cache that can be written.
 */
class FileHashesTests {
  @TempDir Path tmp;

  /** A file large enough for its hash to be remembered. */
  private Path large(byte[] bytes) throws Exception {
    Path lib = tmp.resolve("liblarge.so");
    Files.write(lib, bytes);
    return lib;
  }

  private static byte[] largeBytes() {
    return new byte[(int) FileHashes.LARGE + 1];
  }

  private Map<String, String> userCache() {
    return Map.of("XDG_CACHE_HOME", tmp.resolve("user-cache").toString());
  }

  private List<Path> remembered() throws Exception {
    try (Stream<Path> files = Files.list(tmp.resolve("user-cache").resolve("opcheck4j").resolve("files"))) {
      return files.toList();
    }
  }

  @Test
  void aFreshCacheDirTakesTheHashTheUserCacheRemembers() throws Exception {
    Path lib = large(largeBytes());
    assertEquals(RunBlock.sha256(lib), FileHashes.of(tmp.resolve("first"), userCache()).of(lib));
    assertTrue(FileHashes.of(tmp.resolve("fresh"), userCache()).known(lib));
    assertFalse(FileHashes.of(tmp.resolve("fresh"), Map.of()).known(lib), "the fresh dir itself knows nothing yet");

    // what is remembered is what is used (the file is not read): a hash planted in the user's cache is the answer
    assertEquals(1, remembered().size());
    String planted = "0123456789abcdef".repeat(4);
    Files.writeString(remembered().get(0), planted);
    assertEquals(planted, FileHashes.of(tmp.resolve("fresh"), userCache()).of(lib));
    assertTrue(FileHashes.of(tmp.resolve("fresh"), Map.of()).known(lib),
        "the cache dir remembers it too, for a runner of the same image that gets this dir");
  }

  @Test
  void aFileChangedInPlaceIsReadAgainThoughTheUserCacheRemembersIt() throws Exception {
    byte[] bytes = largeBytes();
    Path lib = large(bytes);
    String before = FileHashes.of(tmp.resolve("first"), userCache()).of(lib);
    bytes[12345] = 1;
    ResultCacheKeyTests.replaceInPlace(lib, bytes); // same size, mtime and inode: only the change time moves
    assertFalse(FileHashes.of(tmp.resolve("fresh"), userCache()).known(lib));
    String after = FileHashes.of(tmp.resolve("fresh"), userCache()).of(lib);
    assertNotEquals(before, after);
    assertEquals(RunBlock.sha256(lib), after);
    assertEquals(2, remembered().size(), "each state of the file under a name of its own");
  }

  @Test
  void aUserCacheThatCannotBeWrittenLeavesTheCacheDirAsBefore() throws Exception {
    Path lib = large(largeBytes());
    Path file = Files.writeString(tmp.resolve("not-a-dir"), "a file where the user's cache should be\n");
    Map<String, String> env = Map.of("XDG_CACHE_HOME", file.toString());
    assertEquals(RunBlock.sha256(lib), FileHashes.of(tmp.resolve("cache"), env).of(lib));
    assertTrue(FileHashes.of(tmp.resolve("cache"), env).known(lib), "the cache dir remembers it");
    assertFalse(FileHashes.of(tmp.resolve("other"), env).known(lib), "nothing else could");
  }

  @Test
  void theUserCacheIsXdgCacheHomeElseHomeDotCache() {
    assertEquals(Path.of("/x/cache"), FileHashes.userCache(Map.of("XDG_CACHE_HOME", "/x/cache", "HOME", "/h")));
    assertEquals(Path.of("/h/.cache"), FileHashes.userCache(Map.of("XDG_CACHE_HOME", "relative", "HOME", "/h")));
    assertNull(FileHashes.userCache(Map.of()), "no place named: the cache dir alone remembers");
  }
}
