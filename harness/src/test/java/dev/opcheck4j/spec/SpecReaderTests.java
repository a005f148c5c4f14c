package dev.opcheck4j.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    assertEquals(spec + ":1:56: unknown key \"exmples\" in an op entry; allowed: devices, domain, examples, gradcheck, op, require, skip, timeout, tolerance, vary, why",
        e.getMessage());
  }

  @Test
  void typosInDomainGradcheckAndToleranceAreErrorsWithTheirLocation() throws Exception {
    Path d = write("dom.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\", \"domain\": {\"layout\": [\"contiguous\"]}} ]}");
    SpecException e = assertThrows(SpecException.class, () -> SpecReader.read(d));
    assertEquals(d + ":1:66: unknown key \"layout\" in \"domain\"; allowed: devices, dtypes, layouts", e.getMessage());
    Path l = write("lay.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\", \"domain\": {\"layouts\": [\"contigous\"]}} ]}");
    e = assertThrows(SpecException.class, () -> SpecReader.read(l));
    assertTrue(e.getMessage().startsWith(l + ":1:68: unknown layout \"contigous\" in \"layouts\"; allowed: channels_last, contiguous"), e.getMessage());
    Path g = write("g.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\", \"gradcheck\": {\"epsilon\": 1}} ]}");
    e = assertThrows(SpecException.class, () -> SpecReader.read(g));
    assertTrue(e.getMessage().startsWith(g + ":1:"), e.getMessage());
    assertTrue(e.getMessage().contains("unknown key \"epsilon\" in \"gradcheck\""), e.getMessage());
    Path t = write("t.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\", \"tolerance\": {\"atl\": 1}} ]}");
    e = assertThrows(SpecException.class, () -> SpecReader.read(t));
    assertTrue(e.getMessage().contains("unknown key \"atl\" in \"tolerance\""), e.getMessage());
  }

  @Test
  void aDomainAndWarningsAsErrorsAreRead() throws Exception {
    Path spec = write("ok.json", "{\"library\": \"x.so\", \"warnings-as-errors\": true, \"ops\": [ {\"op\": \"a::b\","
        + " \"domain\": {\"layouts\": [\"contiguous\"], \"dtypes\": [\"float32\"], \"devices\": [\"cpu\"]}} ]}");
    SpecFile f = SpecReader.read(spec);
    assertTrue(f.warningsAsErrors());
    assertEquals(new Domain(List.of("contiguous"), List.of("float32"), List.of("cpu")), f.ops().get(0).domain());
    assertEquals("contiguous float32 inputs on cpu", f.ops().get(0).domain().describe());
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
