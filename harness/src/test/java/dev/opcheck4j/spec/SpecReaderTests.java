package dev.opcheck4j.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpecReaderTests {
  @TempDir Path dir;

  private Path write(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text);
  }

  @Test
  void readsOpsExamplesSkipsAndTolerance() throws Exception {
    Path spec = write("s.json", """
        { "library": "lib/libfoo.so",
          "ops": [
            { "op": "foo::bar", "devices": ["cpu"], "skip": ["determinism"], "why": "uses atomics",
              "tolerance": {"atol": 1e-4},
              "examples": [ { "args": [ {"tensor": [3, 4]}, 2.5 ], "kwargs": {"k": 1} } ] } ] }
        """);
    SpecFile f = SpecReader.read(spec);
    assertEquals(dir.resolve("lib/libfoo.so"), f.library());
    OpSpec op = f.ops().get(0);
    assertEquals("foo::bar", op.op());
    assertEquals(List.of("cpu"), op.devices());
    assertEquals(Optional.of("uses atomics"), op.skipReason("determinism"));
    assertEquals(new OpSpec.Tolerance(1e-4, 1.3e-6), op.tolerance().orElseThrow());
    assertEquals("s.json#ops[0].examples[0]", op.examples().get(0).ref());
    assertEquals(2, op.examples().get(0).args().size());
    assertEquals(1L, op.examples().get(0).kwargs().get("k").value());
  }

  @Test
  void yamlHasTheSameStructure() throws Exception {
    Path spec = write("s.yaml", """
        library: libfoo.so
        ops:
          - op: foo::bar
            examples:
              - args: [ {tensor: [2]}, 1.0 ]
        """);
    assertEquals("foo::bar", SpecReader.read(spec).ops().get(0).op());
  }

  @Test
  void malformedJsonNamesLineAndColumn() throws Exception {
    Path spec = write("m.json", "{\n  \"library\": \"x.so\",\n  \"ops\": [ {\"op\": } ]\n}\n");
    SpecException e = assertThrows(SpecException.class, () -> SpecReader.read(spec));
    assertEquals(spec + ":3:19: malformed JSON: Unexpected character ('}' (code 125)): expected a value",
        e.getMessage());
  }

  @Test
  void unknownKeysSayWhatIsAllowed() throws Exception {
    Path spec = write("u.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\", \"exmples\": []} ]}");
    SpecException e = assertThrows(SpecException.class, () -> SpecReader.read(spec));
    assertEquals(spec + ":1:56: unknown key \"exmples\" in an op entry; allowed: devices, domain, examples, gradcheck, op, skip, timeout, tolerance, vary, why",
        e.getMessage());
  }

  @Test
  void aSkipNeedsAReason() throws Exception {
    Path spec = write("k.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\", \"skip\": [\"determinism\"]} ]}");
    SpecException e = assertThrows(SpecException.class, () -> SpecReader.read(spec));
    assertEquals(spec + ":1:53: \"skip\" needs a \"why\" string giving the reason", e.getMessage());
  }

  @Test
  void anUnknownDeviceIsNamed() throws Exception {
    Path spec = write("d.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\", \"devices\": [\"tpu\"]} ]}");
    SpecException e = assertThrows(SpecException.class, () -> SpecReader.read(spec));
    assertEquals(spec + ":1:57: unknown device the string \"tpu\"; allowed: cpu, meta, cuda", e.getMessage());
  }
}
