package dev.opcheck4j.run.cache;

import dev.opcheck4j.run.session.CheckOn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.plan.RunTarget;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What enters a {@code --cache} key, without running a worker: a change to anything an op's results
 * depend on gives another key (no replay), and the same inputs give the same key (a replay).
 */
class ResultCacheKeyTests {
  /** Shared by the tests so that libtorch's large files are hashed once. */
  @TempDir static Path cache;
  @TempDir Path tmp;
  private final List<String> notes = new ArrayList<>();

  private ResultCache open(Path spec, Path library, Path baseline, Map<String, String> env) {
    return open(spec, read(spec), library, baseline, env);
  }

  /** The cache of a run that read {@code spec} as {@code read}. */
  private ResultCache open(Path spec, SpecReader.Parsed read, Path library, Path baseline, Map<String, String> env) {
    RunRequest request = RunRequest.builder().spec(spec).seed(7L).tries(3).baseline(baseline).build();
    return ResultCache.open(cache, request, List.of(new RunTarget(spec, library)), java.util.Arrays.asList(read),
        BuiltinChecks.all(), env, notes::add);
  }

  /** The spec as a run reads it, once. */
  private static SpecReader.Parsed read(Path spec) {
    try {
      return SpecReader.parse(spec, java.util.Set.of());
    } catch (dev.opcheck4j.spec.SpecException e) {
      throw new AssertionError(e);
    }
  }

  /** The first entry of {@code op} as the run selects it (the key names the entry by its place); null: library-wide. */
  private static OpSpec entry(String op) {
    return op == null ? null : new OpSpec(op, List.of(), Map.of(), Optional.empty(), List.of(), "spec#ops[0]",
        OpSpec.Gradcheck.DEFAULT, Vary.NONE);
  }

  private String key(Path spec, String op) {
    return open(spec, NativeOps.lib("good_ops"), null, Map.of()).key(0, entry(op));
  }

  private String key(Path spec, Path library, Map<String, String> env, String op) {
    return open(spec, library, null, env).key(0, entry(op));
  }

  /** Writes {@code bytes} over {@code file} in place, and puts its modification time back: size, mtime and inode stay. */
  static void replaceInPlace(Path file, byte[] bytes) throws Exception {
    FileTime mtime = Files.getLastModifiedTime(file);
    Object inode = Files.getAttribute(file, "unix:ino");
    long size = Files.size(file);
    assertEquals(size, bytes.length);
    Object ctime = Files.getAttribute(file, "unix:ctime");
    Files.write(file, bytes, StandardOpenOption.WRITE); // no truncation, no new inode
    Files.setLastModifiedTime(file, mtime);
    // what a user cannot undo: the change time moves on (at the file system clock's next tick)
    while (ctime.equals(Files.getAttribute(file, "unix:ctime"))) {
      Files.setLastModifiedTime(file, mtime);
    }
    assertEquals(size, Files.size(file));
    assertEquals(mtime, Files.getLastModifiedTime(file));
    assertEquals(inode, Files.getAttribute(file, "unix:ino"));
  }

  private static byte[] flipped(Path file, int at) throws Exception {
    byte[] b = Files.readAllBytes(file);
    b[at] ^= 0x5a;
    return b;
  }

  private Path goodSpec(String text) throws Exception {
    Path spec = tmp.resolve("spec.json");
    Files.writeString(spec, text.replace("LIB", NativeOps.lib("good_ops").toString()));
    return spec;
  }

  @Test
  void aJsonSpecWithCommentsIsKeyedByItsEntries() throws Exception {
    Path spec = goodSpec("""
        // a comment, which docs/spec.md allows
        { "library": "LIB",
          "ops": [ { "op": "good_ops::add_scalar", "reference": "x * 2.0",
                     "examples": [ { "args": [ {"tensor": [3]} ] } ] } ] }
        """);
    String before = key(spec, "good_ops::add_scalar");
    assertNotNull(before);
    Files.writeString(spec, Files.readString(spec).replace("x * 2.0", "x * 3.0"));
    assertNotEquals(before, key(spec, "good_ops::add_scalar"), "a changed reference is another key");
    Files.writeString(spec, "// another comment\n" + Files.readString(spec).replace("x * 3.0", "x * 2.0"));
    assertEquals(before, key(spec, "good_ops::add_scalar"), "comments and lines are not the entry");
    assertEquals(List.of(), notes);
  }

  @Test
  void aYamlSpecWithCommentsIsKeyedByItsEntries() throws Exception {
    Path spec = tmp.resolve("spec.yaml");
    Files.writeString(spec, """
        # a comment
        library: LIB
        ops:
          - op: good_ops::add_scalar   # and another
            reference: x * 2.0
            examples:
              - args: [ {tensor: [3]} ]
        """.replace("LIB", NativeOps.lib("good_ops").toString()));
    String before = key(spec, "good_ops::add_scalar");
    assertNotNull(before);
    Files.writeString(spec, Files.readString(spec).replace("x * 2.0", "x * 3.0"));
    assertNotEquals(before, key(spec, "good_ops::add_scalar"));
  }

  /** The spec is read once, by the run: the key is of what the run checks, whatever the file says later. */
  @Test
  void theKeyIsOfTheSpecAsTheRunReadIt() throws Exception {
    Path spec = goodSpec("{ \"library\": \"LIB\", \"ops\": [ { \"op\": \"good_ops::add_scalar\" } ] }");
    SpecReader.Parsed read = read(spec);
    String before = open(spec, read, NativeOps.lib("good_ops"), null, Map.of()).key(0, entry("good_ops::add_scalar"));
    assertNotNull(before);
    Files.writeString(spec, "{ \"library\": ");
    assertEquals(before, open(spec, read, NativeOps.lib("good_ops"), null, Map.of()).key(0, entry("good_ops::add_scalar")),
        "the file changed after the run read it: the run checks what it read");
    assertEquals(List.of(), notes);
  }

  @Test
  void anExpectFileIsKeyedByItsContent() throws Exception {
    Path dir = tmp.resolve("values");
    Files.createDirectories(dir.resolve("expected"));
    for (String f : List.of("sine_x.pt", "scaled_sine_x.pt")) {
      Files.copy(NativeOps.spec("values/expected/" + f), dir.resolve("expected/" + f));
    }
    Path spec = dir.resolve("value_ops_expect.json");
    Files.writeString(spec, Files.readString(NativeOps.spec("values/value_ops_expect.json"))
        .replace("../../../native-ops/target/lib/libvalue_ops.so", NativeOps.lib("value_ops").toString()));
    String sine = key(spec, NativeOps.lib("value_ops"), Map.of(), "value_ops::sine");
    String scaled = key(spec, NativeOps.lib("value_ops"), Map.of(), "value_ops::scaled_sine");
    Path expect = dir.resolve("expected/sine_x.pt");
    replaceInPlace(expect, flipped(expect, (int) Files.size(expect) - 20));
    assertNotEquals(sine, key(spec, NativeOps.lib("value_ops"), Map.of(), "value_ops::sine"));
    assertEquals(scaled, key(spec, NativeOps.lib("value_ops"), Map.of(), "value_ops::scaled_sine"),
        "another op's entry names another file");
  }

  @Test
  void aBaselineAndItsRecordedValuesAreKeyedByContent() throws Exception {
    Path spec = goodSpec("{ \"library\": \"LIB\", \"ops\": [ { \"op\": \"good_ops::add_scalar\" } ] }");
    Path baseline = tmp.resolve("good.baseline.json");
    Files.writeString(baseline, Files.readString(Path.of(NativeOps.repoRoot() + "/fixtures/baselines/compat_v1.json"))
        .replaceFirst("\\{", "{ \"values\": \"good.baseline.values.json\","));
    Path values = tmp.resolve("good.baseline.values.json");
    Files.writeString(values, "{\"format\":\"opcheck4j-values/1\",\"seed\":7,\"examples\":[]}\n");
    String before = open(spec, NativeOps.lib("good_ops"), baseline, Map.of()).key(0, entry("good_ops::add_scalar"));
    replaceInPlace(values, flipped(values, 40));
    String valuesChanged = open(spec, NativeOps.lib("good_ops"), baseline, Map.of()).key(0, entry("good_ops::add_scalar"));
    assertNotEquals(before, valuesChanged, "the recorded values are read by baseline.values");
    replaceInPlace(baseline, Files.readString(baseline).replace("compat::defaulted", "compat::defaultex").getBytes());
    assertNotEquals(valuesChanged, open(spec, NativeOps.lib("good_ops"), baseline, Map.of()).key(0, entry("good_ops::add_scalar")));
  }

  @Test
  void aLibraryReplacedKeepingSizeMtimeAndInodeIsAnotherKey() throws Exception {
    Path lib = tmp.resolve("libgood_ops.so");
    Files.copy(NativeOps.lib("good_ops"), lib);
    Path spec = goodSpec("{ \"library\": \"LIB\", \"ops\": [ { \"op\": \"good_ops::add_scalar\" } ] }");
    String before = key(spec, lib, Map.of(), "good_ops::add_scalar");
    assertEquals(before, key(spec, lib, Map.of(), "good_ops::add_scalar"), "an unchanged library is the same key");
    replaceInPlace(lib, flipped(lib, (int) Files.size(lib) / 2));
    assertNotEquals(before, key(spec, lib, Map.of(), "good_ops::add_scalar"));
  }

  @Test
  void aLargeLibraryReplacedKeepingSizeMtimeAndInodeIsHashedAgain() throws Exception {
    // large enough for its hash to be remembered: the change time is what tells it changed
    Path lib = tmp.resolve("liblarge.so");
    byte[] bytes = new byte[(int) FileHashes.LARGE + 1];
    Files.write(lib, bytes);
    Path spec = goodSpec("{ \"library\": \"LIB\", \"ops\": [ { \"op\": \"good_ops::add_scalar\" } ] }");
    List<RunTarget> targets = List.of(new RunTarget(spec, lib));
    String before = key(spec, lib, Map.of(), null);
    assertTrue(ResultCache.remembers(cache, targets, Map.of()));
    assertEquals(before, key(spec, lib, Map.of(), null), "unchanged: its remembered hash");
    bytes[12345] = 1;
    replaceInPlace(lib, bytes);
    org.junit.jupiter.api.Assertions.assertFalse(ResultCache.remembers(cache, targets, Map.of()),
        "its change time moved: the remembered hash is not its hash");
    assertNotEquals(before, key(spec, lib, Map.of(), null));
  }

  @Test
  void aDependencyReplacedKeepingSizeMtimeAndInodeIsAnotherKey() throws Exception {
    // LD_LIBRARY_PATH comes before the library's RUNPATH: ldd resolves c10 to this copy
    Path deps = Files.createDirectories(tmp.resolve("deps"));
    Path c10 = deps.resolve("libc10.so");
    Path original = NativeFiles.dependencies(NativeOps.lib("good_ops"), Map.of()).stream()
        .filter(p -> p.getFileName().toString().equals("libc10.so")).findFirst().orElseThrow();
    Files.copy(original, c10, StandardCopyOption.COPY_ATTRIBUTES);
    Map<String, String> env = Map.of("LD_LIBRARY_PATH", deps.toString());
    Path spec = goodSpec("{ \"library\": \"LIB\", \"ops\": [ { \"op\": \"good_ops::add_scalar\" } ] }");
    assertTrue(NativeFiles.dependencies(NativeOps.lib("good_ops"), env).contains(c10),
        NativeFiles.dependencies(NativeOps.lib("good_ops"), env).toString());
    String before = key(spec, NativeOps.lib("good_ops"), env, "good_ops::add_scalar");
    assertEquals(before, key(spec, NativeOps.lib("good_ops"), env, "good_ops::add_scalar"));
    replaceInPlace(c10, flipped(c10, 4096));
    assertNotEquals(before, key(spec, NativeOps.lib("good_ops"), env, "good_ops::add_scalar"));
  }

  @Test
  void aPreloadedLibraryIsKeyedByContent() throws Exception {
    Path pre = tmp.resolve("libpre.so");
    Files.copy(NativeOps.lib("no_ops"), pre);
    Map<String, String> env = Map.of("LD_PRELOAD", pre.toString());
    assertTrue(NativeFiles.dependencies(NativeOps.lib("good_ops"), env).contains(pre), "ldd lists it without =>");
    Path spec = goodSpec("{ \"library\": \"LIB\", \"ops\": [ { \"op\": \"good_ops::add_scalar\" } ] }");
    String before = key(spec, NativeOps.lib("good_ops"), env, "good_ops::add_scalar");
    assertNotEquals(key(spec, NativeOps.lib("good_ops"), Map.of(), "good_ops::add_scalar"), before);
    replaceInPlace(pre, flipped(pre, (int) Files.size(pre) / 2));
    assertNotEquals(before, key(spec, NativeOps.lib("good_ops"), env, "good_ops::add_scalar"),
        "the same LD_PRELOAD, another library behind it");
  }

  @Test
  void lddsPreloadedLinesAreKeptAndSystemLibrariesAndTheLoaderAreNot() {
    String ldd = """
        \tlinux-vdso.so.1 (0x00007ffd)
        \t/opt/pre/libpre.so (0x00007f01)
        \tlibtorch_cpu.so => /opt/torch/libtorch_cpu.so (0x00007f02)
        \tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f03)
        \t/lib64/ld-linux-x86-64.so.2 (0x00007f04)
        """;
    assertEquals(List.of(Path.of("/opt/pre/libpre.so"), Path.of("/opt/torch/libtorch_cpu.so")),
        NativeFiles.lddLibraries(ldd));
  }

  @Test
  void theThreadingAndLoaderEnvironmentIsKeyedAndTheRestIsNot() throws Exception {
    Path spec = goodSpec("{ \"library\": \"LIB\", \"ops\": [ { \"op\": \"good_ops::add_scalar\" } ] }");
    Path lib = NativeOps.lib("good_ops");
    String a = tmp.resolve("a").toString();
    String plain = key(spec, lib, Map.of("HOME", a), "good_ops::add_scalar");
    assertEquals(plain, key(spec, lib, Map.of("HOME", tmp.resolve("b").toString(), "TORCH_CPP_LOG_LEVEL", "INFO"),
        "good_ops::add_scalar"));
    for (Map.Entry<String, String> e : Map.of("OMP_NUM_THREADS", "1", "MKL_NUM_THREADS", "2",
        "LD_LIBRARY_PATH", "/nowhere", "OPENBLAS_NUM_THREADS", "1").entrySet()) {
      Map<String, String> env = new HashMap<>(Map.of("HOME", a));
      env.put(e.getKey(), e.getValue());
      assertNotEquals(plain, key(spec, lib, env, "good_ops::add_scalar"), e.getKey());
    }
  }

  @Test
  void theLibtorchBuildTheWorkersLoadIsKeyed() {
    List<Path> files = NativeFiles.libtorchFiles();
    assertTrue(files.stream().anyMatch(f -> f.getFileName().toString().equals("libtorch_cpu.so")), files.toString());
    assertTrue(files.stream().anyMatch(f -> f.getFileName().toString().equals("libjnitorch.so")), files.toString());
  }

  @Test
  void aTamperedEntryIsIgnoredWithOneLine() throws Exception {
    Path spec = goodSpec("{ \"library\": \"LIB\", \"ops\": [ { \"op\": \"good_ops::add_scalar\" } ] }");
    Path dir = tmp.resolve("own-cache");
    RunRequest request = RunRequest.builder().spec(spec).seed(7L).build();
    ResultCache c = ResultCache.open(dir, request, List.of(new RunTarget(spec, NativeOps.lib("good_ops"))),
        List.of(read(spec)), BuiltinChecks.all(), Map.of(), notes::add);
    String key = c.key(0, entry("good_ops::add_scalar"));
    List<CheckResult> results = List.of(
        new CheckResult("good_ops::add_scalar", "schema.parse", "-", "-", Outcome.PASSED, List.of(), 5),
        new CheckResult("good_ops::add_scalar", "fake.shape", "cpu", "-", Outcome.PASSED, List.of(), 7));
    List<CheckOn> plan = List.of(new CheckOn("schema.parse", null), new CheckOn("fake.shape", Device.CPU));
    c.store(key, results);
    assertEquals(Optional.of(results), c.results(key, plan));
    assertEquals(Optional.empty(), c.results(key, List.of(new CheckOn("schema.parse", null),
        new CheckOn("fake.shape", Device.CPU), new CheckOn("fake.shape", Device.META))));
    assertEquals(List.of("cache: ignoring corrupt entry " + entry(dir, key)
        + " (no result for fake.shape on meta)"), notes);

    notes.clear();
    Path file = entry(dir, key);
    String text = Files.readString(file);
    String flipped = text.replaceFirst("\"durationMicros\":5", "\"durationMicros\":6");
    assertNotEquals(text, flipped);
    Files.writeString(file, flipped);
    assertEquals(Optional.empty(), c.results(key, plan), "a byte changed that still parses");
    assertEquals(List.of("cache: ignoring corrupt entry " + file + " (its checksum does not match its text)"), notes);

    notes.clear();
    c.store(key, List.of());
    assertEquals(Optional.empty(), c.results(key, plan), "no results where the plan has units");
    assertEquals(List.of("cache: ignoring corrupt entry " + file + " (no results)"), notes);
    assertEquals(Optional.of(List.of()), c.results(key, List.of()), "none where it has none");
  }

  private static Path entry(Path dir, String key) {
    return dir.resolve("ops").resolve(key.substring(0, 2)).resolve(key + ".json");
  }
}
