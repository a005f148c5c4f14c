package dev.opcheck4j.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Where the native-ops build put its libraries and sources, and the EXPECT markers in them. */
public final class NativeOps {
  private NativeOps() {}

  public static Path repoRoot() {
    return Path.of(System.getProperty("opcheck4j.repoRoot", "..")).toAbsolutePath().normalize();
  }

  public static Path lib(String name) {
    String dir = System.getProperty("opcheck4j.nativeLibDir");
    Path base = dir != null ? Path.of(dir) : repoRoot().resolve("native-ops/target/lib");
    return base.resolve("lib" + name + ".so");
  }

  /**
   * Whether the LibTorch headers native-ops was built with are libtorch 2.10's (a 2.10 wheel's, say):
   * then a classic TORCH_LIBRARY library built with them loads, and the fixtures built for "another
   * libtorch" are not. Read from the headers' {@code torch/headeronly/version.h} (or the older
   * {@code torch/csrc/api/include/torch/version.h}).
   */
  /**
   * The fixture built with another release's headers than the runtime's ({@code classic_other_headers}), or a
   * reason to skip: native-ops builds it only where such headers could be had (Debian's libtorch-dev).
   */
  public static Path otherHeadersFixture() {
    Path lib = lib("classic_other_headers");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(lib),
        "native-ops found no other release's headers (Debian's libtorch-dev), so " + lib.getFileName() + " was not built");
    return lib;
  }

  /** A spec under fixtures/specs. */
  public static Path spec(String relative) {
    return repoRoot().resolve("fixtures/specs").resolve(relative);
  }

  public static Path source(String file) {
    return repoRoot().resolve("native-ops/src/main/cpp").resolve(file);
  }

  /**
   * The {@code // OP: ns::name} / {@code // EXPECT: id, id} pairs of a corpus source, in file order:
   * op name to the check ids its one defect must trip.
   */
  public static Map<String, Set<String>> expectations(String file) throws IOException {
    Map<String, Set<String>> out = new LinkedHashMap<>();
    String op = null;
    for (String line : Files.readAllLines(source(file))) {
      String t = line.strip();
      if (t.startsWith("// OP:")) {
        op = t.substring("// OP:".length()).strip();
      } else if (t.startsWith("// EXPECT:") && op != null) {
        Set<String> ids = new TreeSet<>();
        for (String id : t.substring("// EXPECT:".length()).split(",")) {
          ids.add(id.strip());
        }
        out.put(op, ids);
        op = null;
      }
    }
    return out;
  }

  /** Every op a corpus source introduces with {@code // OP: ns::name}, marked or not, in file order. */
  public static List<String> opsIn(String file) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(source(file))) {
      String t = line.strip();
      if (t.startsWith("// OP:")) {
        out.add(t.substring("// OP:".length()).strip());
      }
    }
    return out;
  }

  public static List<Path> goodLibraries() {
    return new ArrayList<>(List.of(lib("my_ops"), lib("good_ops")));
  }
}
