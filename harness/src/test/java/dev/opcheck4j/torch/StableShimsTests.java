package dev.opcheck4j.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class StableShimsTests {
  @Test
  void theTableIsWhatTheHeadersTheLibrariesAreBuiltWithDeclareAfter210() throws Exception {
    Path shim = NativeOps.repoRoot().resolve(
        "native-ops/target/torch-headers/wheel/unpacked/torch/include/torch/csrc/stable/c/shim.h");
    assertTrue(Files.isRegularFile(shim), "native-ops builds with the torch wheel's headers: " + shim);
    Pattern block = Pattern.compile("#if TORCH_FEATURE_VERSION >= TORCH_VERSION_(\\d+)_(\\d+)_0");
    Pattern function = Pattern.compile("\\b(torch_[a-z0-9_]+)\\s*\\(");
    Map<String, String> declared = new TreeMap<>();
    String release = null;
    for (String line : Files.readAllLines(shim)) {
      Matcher b = block.matcher(line);
      if (b.find()) {
        release = b.group(1) + "." + b.group(2);
      } else if (line.startsWith("#endif")) {
        release = null;
      } else if (release != null && !release.equals("2.10")) {
        Matcher f = function.matcher(line);
        while (f.find()) {
          declared.put(f.group(1), release);
        }
      }
    }
    assertEquals(declared, new TreeMap<>(StableShims.all()));
  }

  @Test
  void aLibraryNeedsTheNewestReleaseOfWhatItCalls() {
    assertEquals(Optional.of("needs libtorch \u2265 2.11: uses torch_from_blob"), StableShims.needs(List.of("torch_from_blob")));
    assertEquals(Optional.of("needs libtorch \u2265 2.13: uses torch_exception_get_what, torch_from_blob (2.11)"),
        StableShims.needs(List.of("torch_from_blob", "torch_exception_get_what")));
    // a function of a release after the headers' (torch_has_storage, 2.14) is not the table's to date
    assertEquals(Optional.empty(), StableShims.needs(List.of("torch_from_blob", "torch_has_storage")));
  }
}
