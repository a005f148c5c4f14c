package dev.opcheck4j.run.cache;

import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.RunOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.plan.RunTarget;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --cache}: what is replayed, what is run again, and what is not trusted. */
class ResultCacheTests {
  @TempDir Path tmp;
  private Path spec;
  private Path cache;

  /** good_ops' spec, copied so that a test can edit it, naming the library by its absolute path. */
  @BeforeEach
  void copySpec() throws Exception {
    String text = Files.readString(NativeOps.spec("good_ops.json"))
        .replace("../../native-ops/target/lib/libgood_ops.so", NativeOps.lib("good_ops").toString());
    spec = tmp.resolve("good_ops.json");
    Files.writeString(spec, text);
    cache = tmp.resolve("cache");
  }

  private RunOutcome run(String reportDir) throws Exception {
    return Launcher.execute(RunRequest.builder().spec(spec).devices(List.of(Device.CPU)).tries(3).seed(7L).jobs(1)
        .reportDir(tmp.resolve(reportDir)).cache(cache).build(), RunListener.NONE);
  }

  private static List<String> verdicts(RunOutcome o) {
    return o.report().results().stream()
        .map(r -> String.join(" ", r.op(), r.check(), r.device(), r.example(), r.outcome().name())).toList();
  }

  private static boolean workerStarted(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.anyMatch(f -> f.getFileName().toString().startsWith("worker-"));
    }
  }

  @Test
  void aCachedReRunStartsNoWorkerAndGivesTheSameResults() throws Exception {
    RunOutcome first = run("first");
    assertTrue(first.report().run().cached().isEmpty());
    assertTrue(workerStarted(tmp.resolve("first")));

    RunOutcome again = run("again");
    assertFalse(workerStarted(tmp.resolve("again")), "a run whose ops are all cached starts no worker");
    assertEquals(verdicts(first), verdicts(again));
    assertEquals(first.report().results().stream().map(CheckResult::facts).toList(),
        again.report().results().stream().map(CheckResult::facts).toList());
    List<String> all = Stream.concat(Stream.of("libgood_ops.so"), first.ops().stream()).toList();
    assertEquals(all, again.report().run().cached());
  }

  @Test
  void changingOneOpsSpecEntryRerunsThatOpAlone() throws Exception {
    RunOutcome first = run("first");
    Files.writeString(spec, Files.readString(spec).replace("{ \"args\": [ {\"tensor\": [3, 4]} ] }",
        "{ \"args\": [ {\"tensor\": [2, 5]} ] }"));

    RunOutcome again = run("again");
    List<String> expected = Stream.concat(Stream.of("libgood_ops.so"), first.ops().stream())
        .filter(op -> !op.equals("good_ops::min_max")).toList();
    assertEquals(expected, again.report().run().cached());
    assertTrue(again.report().results().stream().anyMatch(r -> r.op().equals("good_ops::min_max")));
  }

  /** The cache's stored op entries. */
  private List<Path> entries() throws java.io.IOException {
    try (Stream<Path> files = Files.walk(cache.resolve("ops"))) {
      return files.filter(f -> f.toString().endsWith(".json")).toList();
    }
  }

  @Test
  void aCorruptEntryIsIgnoredAndItsOpRuns() throws Exception {
    RunOutcome first = run("first");
    List<Path> entries = entries();
    Files.writeString(entries.get(0), "[\"Entry\",{\"key\":");

    RunOutcome again = run("again");
    assertEquals(first.ops().size(), again.report().run().cached().size(),
        "one of the ops and the library-wide checks is run again, the rest replayed");
    assertEquals(verdicts(first), verdicts(again));
    assertTrue(workerStarted(tmp.resolve("again")));
  }

  @Test
  void aFirstRunHashesLibtorchWhileItsWorkerStartsAndRemembersIt() throws Exception {
    Path lib = tmp.resolve("libgood_ops.so");
    Files.copy(NativeOps.lib("good_ops"), lib);
    Files.writeString(spec, Files.readString(spec).replace(NativeOps.lib("good_ops").toString(), lib.toString()));
    List<RunTarget> targets = List.of(new RunTarget(spec, lib));
    // the user's cache on this machine may know libtorch: an empty one here, to ask the cache dir alone
    Map<String, String> noUserCache = Map.of("XDG_CACHE_HOME", tmp.resolve("empty-user-cache").toString());
    assertFalse(ResultCache.remembers(cache, targets, noUserCache), "an empty cache knows no libtorch");
    RunOutcome first = run("first");
    assertTrue(ResultCache.remembers(cache, targets, noUserCache), "after a run it knows libtorch's large files");
    try (Stream<Path> memos = Files.list(cache.resolve("files"))) {
      assertTrue(memos.count() >= 2, "libtorch_cpu and the JNI library at least");
    }
    Files.setLastModifiedTime(lib, java.nio.file.attribute.FileTime.fromMillis(Files.getLastModifiedTime(lib).toMillis() + 2000));
    assertTrue(ResultCache.remembers(cache, targets, System.getenv()), "a small library is read on every run anyway");
    RunOutcome again = run("again");
    assertFalse(workerStarted(tmp.resolve("again")));
    assertEquals(Stream.concat(Stream.of("libgood_ops.so"), first.ops().stream()).toList(), again.report().run().cached(),
        "the same content: every op is still replayed");
  }

  @Test
  void anEntryWhoseResultsWereEmptiedIsIgnoredAndItsOpRuns() throws Exception {
    RunOutcome first = run("first");
    List<Path> entries = entries();
    // emptied with a checksum that matches: what the plan expects of the op is what catches it
    Path entry = entries.stream().filter(f -> {
      try {
        return Files.readString(f).contains("good_ops::min_max");
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }).findFirst().orElseThrow();
    String body = Files.readString(entry).lines().skip(1).findFirst().orElseThrow();
    String emptied = body.replaceAll("\"results\":\\[.*\\]", "\"results\":[]");
    Files.writeString(entry, sha256(emptied) + "\n" + emptied + "\n");

    RunOutcome again = run("again");
    assertFalse(again.report().run().cached().contains("good_ops::min_max"), "the emptied entry is not replayed");
    assertEquals(verdicts(first), verdicts(again), "the op ran again and gave its results");
  }

  @Test
  void aJobWithoutUnitsUnderOneCheckIsReplayedToo() throws Exception {
    RunRequest.Builder b = RunRequest.builder().spec(spec).devices(List.of(Device.CPU)).tries(0).seed(7L).jobs(1)
        .ops(List.of("good_ops::add_scalar")).checks(List.of("fake.metadata")).cache(cache);
    Launcher.execute(b.reportDir(tmp.resolve("first")).build(), RunListener.NONE);
    RunOutcome again = Launcher.execute(b.reportDir(tmp.resolve("again")).build(), RunListener.NONE);
    assertEquals(List.of("libgood_ops.so", "good_ops::add_scalar"), again.report().run().cached(),
        "the library-wide job has no unit under fake.metadata: its empty entry matches its plan");
    assertFalse(workerStarted(tmp.resolve("again")));
  }

  @Test
  void aCachePathThatIsAFileIsOneLineOfBadInput() throws Exception {
    Files.writeString(cache, "not a directory");
    SpecException e = assertThrows(SpecException.class, () -> run("first"));
    assertEquals(List.of(cache + ": --cache names a file, not a directory; give a directory (it is made when missing)"),
        e.lines());
    assertFalse(Files.exists(tmp.resolve("first")), "nothing ran");
  }

  private static String sha256(String text) throws Exception {
    return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
        .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }
}
