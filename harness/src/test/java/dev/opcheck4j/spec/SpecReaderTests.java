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
  void packagesArePathsOrObjectsAndEveryFileTheyNameMustBeThere() throws Exception {
    for (String f : java.util.List.of("m.pt2", "x.pt", "out.pt", "v1.json")) {
      write(f, "");
    }
    Path spec = write("p.json", """
        { "library": "libfoo.so", "ops": [ {"op": "foo::bar"} ],
          "packages": [ "m.pt2", {"file": "m.pt2", "inputs": ["x.pt"], "expect": "out.pt", "baseline": "v1.json"} ] }
        """);
    java.util.List<PackageEntry> p = SpecReader.read(spec).packages();
    assertEquals(2, p.size());
    assertEquals(spec.getParent().resolve("m.pt2"), p.get(0).file());
    assertEquals(false, p.get(0).runnable());
    assertEquals(java.util.List.of(spec.getParent().resolve("x.pt")), p.get(1).inputs());
    assertEquals(spec.getParent().resolve("v1.json"), p.get(1).baseline());
    assertEquals(true, p.get(1).runnable());
    Path missing = write("q.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\"} ], \"packages\": [\"gone.pt2\"]}");
    assertEquals(missing + ":1:61: \"packages\" entry file not found: " + missing.getParent().resolve("gone.pt2"),
        assertThrows(SpecException.class, () -> SpecReader.read(missing)).getMessage());
    Path half = write("h.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\"} ],"
        + " \"packages\": [ {\"file\": \"m.pt2\", \"inputs\": [\"x.pt\"]} ]}");
    assertTrue(assertThrows(SpecException.class, () -> SpecReader.read(half)).getMessage()
        .endsWith("a \"packages\" entry runs its package when it names both \"inputs\" and \"expect\": give both, or"
            + " neither to check the package without running it"));
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
    assertEquals(spec + ":1:56: unknown key \"exmples\" in an op entry; allowed: devices, differentiable, domain, double_backward, examples, gradcheck, op, reference, require, skip, tags, timeout, tolerance, variant_of, vary, why; did you mean examples?",
        e.getMessage());
  }

  @Test
  void anEntryDeclaresTagsByLibtorchsNamesSorted() throws Exception {
    Path spec = write("t.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\", \"tags\": [\"pt2_compliant_tag\", \"inplace_view\"]},"
        + " {\"op\": \"a::c\"} ]}");
    List<OpSpec> ops = SpecReader.read(spec).ops();
    assertEquals(List.of("inplace_view", "pt2_compliant_tag"), ops.get(0).tags());
    assertEquals(List.of(), ops.get(1).tags());
    Path typo = write("t2.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\", \"tags\": [\"pt2_compliant\"]} ]}");
    SpecException e = assertThrows(SpecException.class, () -> SpecReader.read(typo));
    assertTrue(e.getMessage().startsWith(typo + ":1:54: unknown tag \"pt2_compliant\" in \"tags\"; allowed: core, "), e.getMessage());
    assertTrue(e.getMessage().endsWith("did you mean pt2_compliant_tag?"), e.getMessage());
    Path empty = write("t3.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\", \"tags\": []} ]}");
    e = assertThrows(SpecException.class, () -> SpecReader.read(empty));
    assertEquals(empty + ":1:53: \"tags\" must name at least one tag; leave it out to declare none", e.getMessage());
  }

  @Test
  void typosInDomainGradcheckAndToleranceAreErrorsWithTheirLocation() throws Exception {
    Path d = write("dom.json", "{\"library\": \"x.so\", \"ops\": [ {\"op\": \"a::b\", \"domain\": {\"layout\": [\"contiguous\"]}} ]}");
    SpecException e = assertThrows(SpecException.class, () -> SpecReader.read(d));
    assertEquals(d + ":1:66: unknown key \"layout\" in \"domain\"; allowed: devices, dtypes, layouts; did you mean layouts?", e.getMessage());
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

  private String error(String name, String text) throws IOException {
    Path spec = write(name, text);
    SpecException e = assertThrows(SpecException.class,
        () -> SpecReader.read(spec, java.util.Set.of("determinism", "fake", "fake.metadata")));
    assertEquals(1, e.lines().size());
    return e.getMessage().substring(spec.toString().length());
  }

  @Test
  void eachClassOfHostileSpecIsOneLocatedLine() throws Exception {
    assertEquals(":1:55: \"timeout\" is the deadline of one unit in seconds (a number > 0, at most 86400), got 1.0E18",
        error("t.json", "{\"library\": \"x.so\", \"ops\": [{\"op\": \"a::b\", \"timeout\": 1e18}]}"));
    assertTrue(error("n.json", "{\"library\": \"a\\u0000b.so\", \"ops\": [{\"op\": \"a::b\"}]}")
        .startsWith(":1:13: \"library\" is not a usable path: the string \"a\\u0000b.so\""));
    assertEquals(":1:93: arrays and objects nested more than 32 deep; a spec needs far fewer",
        error("deep.json", "{\"library\": \"x.so\", \"ops\": [{\"op\": \"a::b\", \"examples\": [{\"args\": ["
            + "[".repeat(900) + "]".repeat(900) + "]}]}]}"));
    assertTrue(error("b.yaml", "library: !!binary aGVsbG8=\nops: [{op: a::b}]\n")
        .startsWith(":1:10: binary and other tagged YAML values (!!binary) cannot be given"));
    assertEquals(":3:1: malformed YAML: found character '\\t(TAB)' that cannot start any token. (Do not use \\t(TAB) for indentation)",
        error("tab.yaml", "library: x.so\nops:\n\t- op: a::b\n"));
    assertEquals(":1:39: \"skip\" names \"nope.check\", which is no check or family (./opcheck checks lists them)",
        error("s.json", "{\"library\": \"x.so\", \"ops\": [{\"skip\": [\"nope.check\"], \"why\": \"x\", \"op\": \"a::b\"}]}"));
    assertEquals(":1:39: \"skip\" names \"determinsm\", which is no check or family; did you mean determinism?",
        error("s2.json", "{\"library\": \"x.so\", \"ops\": [{\"skip\": [\"determinsm\"], \"why\": \"x\", \"op\": \"a::b\"}]}"));
    assertEquals(":1:55: \"devices\" must name at least one device; leave it out to run on every available device",
        error("d.json", "{\"library\": \"x.so\", \"ops\": [{\"op\": \"a::b\", \"devices\": []}]}"));
    assertEquals(":1:21: duplicate key \"library\" (first given at 1:13); give each key once",
        error("dup.json", "{\"library\": \"a.so\", \"library\": \"b.so\", \"ops\": [{\"op\": \"a::b\"}]}"));
    String op = error("long.json", "{\"library\": \"x.so\", \"ops\": [{\"op\": \"" + "q".repeat(1_000_000) + "\"}]}");
    assertTrue(op.length() < 300 && op.contains("(1000000 characters)"), op);
  }

  /**
   * Issue 41: a spec read with any well-formed check name (the JUnit engine's discovery) gives, once the run
   * knows its checks, the error a read with them would have given, without being read again.
   */
  @Test
  void theCheckNamesOfASpecAlreadyReadAreCheckedWithoutReadingItAgain() throws Exception {
    java.util.Set<String> checks = java.util.Set.of("determinism", "fake", "fake.metadata");
    Path spec = write("again.json", "{\"library\": \"x.so\", \"ops\": [{\"op\": \"a::b\", \"skip\": [\"fake\"], \"why\": \"x\"},"
        + " {\"op\": \"a::c\", \"skip\": [\"determinism\", \"determinsm\", \"nope\"], \"why\": \"x\"}]}");
    SpecReader.Parsed read = SpecReader.parse(spec, java.util.Set.of());
    long before = SpecReader.parses();
    SpecException late = assertThrows(SpecException.class, () -> SpecReader.requireCheckNames(read, checks));
    assertEquals(before, SpecReader.parses(), "checked on the values read, not read again");
    SpecException direct = assertThrows(SpecException.class, () -> SpecReader.parse(spec, checks));
    assertEquals(direct.getMessage(), late.getMessage());
    assertTrue(late.getMessage().endsWith(":1:114: \"skip\" names \"determinsm\", which is no check or family; did you mean determinism?"),
        late.getMessage());
    SpecReader.requireCheckNames(SpecReader.parse(write("fine.json", "{\"library\": \"x.so\", \"ops\": [{\"op\": \"a::b\"}]}"),
        java.util.Set.of()), checks);
  }

  @Test
  void aSpecFileOverTheLimitIsRefusedBeforeItIsParsed() throws Exception {
    Path spec = write("big.yaml", "library: x.so\nops: [{op: a::b}]\n# " + "c".repeat((int) SpecReader.MAX_YAML_BYTES) + "\n");
    SpecException e = assertThrows(SpecException.class, () -> SpecReader.read(spec));
    assertTrue(e.getMessage().startsWith(spec + ": spec file is "), e.getMessage());
    assertTrue(e.getMessage().contains("YAML spec files may have at most 262144"), e.getMessage());
  }

  @Test
  void differentiableFalseDeclaresTheOpNonDifferentiableAndAnythingButABooleanIsAnError() throws Exception {
    Path spec = write("d.json", """
        { "library": "lib/libfoo.so",
          "ops": [ { "op": "foo::a", "differentiable": false }, { "op": "foo::b" } ] }
        """);
    List<OpSpec> ops = SpecReader.read(spec).ops();
    assertEquals(false, ops.get(0).differentiable());
    assertEquals(true, ops.get(1).differentiable());
    Path bad = write("e.json", """
        { "library": "lib/libfoo.so", "ops": [ { "op": "foo::a", "differentiable": "no" } ] }
        """);
    SpecException e = assertThrows(SpecException.class, () -> SpecReader.read(bad));
    assertTrue(e.getMessage().contains("\"differentiable\" must be true or false"), e.getMessage());
  }

  @Test
  void doubleBackwardFalseKeepsTheGradcheckSettingsAndAnythingButABooleanIsAnError() throws Exception {
    Path spec = write("g.json", """
        { "library": "lib/libfoo.so",
          "ops": [ { "op": "foo::a", "double_backward": false, "gradcheck": {"atol": 1e-4, "mode": "slow"} },
                   { "op": "foo::b" } ] }
        """);
    List<OpSpec> ops = SpecReader.read(spec).ops();
    assertEquals(new OpSpec.Gradcheck(1e-6, 1e-4, 1e-3, false, false), ops.get(0).gradcheck());
    assertEquals(true, ops.get(1).gradcheck().doubleBackward());
    assertEquals(false, ops.get(0).gradcheck().slow().doubleBackward(), "slow mode keeps the claim");
    Path bad = write("h.json", """
        { "library": "lib/libfoo.so", "ops": [ { "op": "foo::a", "double_backward": 0 } ] }
        """);
    SpecException e = assertThrows(SpecException.class, () -> SpecReader.read(bad));
    assertTrue(e.getMessage().contains("\"double_backward\" must be true or false"), e.getMessage());
  }

  @Test
  void variantOfNamesAFamilyOrNoneWithAReasonAndEachMistakeIsOneLocatedLine() throws Exception {
    Path spec = write("v.json", """
        { "library": "lib/libfoo.so",
          "ops": [ { "op": "foo::scale_inplace", "variant_of": {"op": "foo::scale", "kind": "in-place"} },
                   { "op": "foo::scale_into", "variant_of": {"op": "foo::scale", "kind": "out"} },
                   { "op": "foo::quad_out", "variant_of": {"none": "the quartic, not quad's out= variant"} },
                   { "op": "foo::scale" } ] }
        """);
    List<OpSpec> ops = SpecReader.read(spec).ops();
    VariantOf inPlace = ops.get(0).variantOf().orElseThrow();
    assertEquals("foo::scale", inPlace.functional());
    assertTrue(inPlace.inPlace() && !inPlace.isNone(), inPlace.toString());
    assertTrue(inPlace.location().startsWith(spec.toAbsolutePath().normalize() + ":2:"), inPlace.location());
    assertEquals(false, ops.get(1).variantOf().orElseThrow().inPlace());
    assertTrue(ops.get(2).variantOf().orElseThrow().isNone());
    assertEquals("the quartic, not quad's out= variant", ops.get(2).variantOf().orElseThrow().none());
    assertTrue(ops.get(3).variantOf().isEmpty());
    for (String[] bad : new String[][] {
        {"{\"op\": \"foo::scale\"}", "\"variant_of\" needs \"op\" and \"kind\""},
        {"{\"op\": \"foo::scale\", \"kind\": \"inplace\"}", "\"kind\" in \"variant_of\" is \"in-place\" or \"out\", got the string \"inplace\""},
        {"{\"op\": \"scale\", \"kind\": \"out\"}", "\"op\" in \"variant_of\" is the functional op's qualified name"},
        {"{\"op\": \"foo::a\", \"kind\": \"out\"}", "\"variant_of\" names the op itself"},
        {"{\"none\": \" \"}", "\"none\" in \"variant_of\" is the reason the op is no variant"},
        {"{\"none\": \"why\", \"op\": \"foo::b\"}", "\"variant_of\" gives \"none\" with \"op\" or \"kind\""},
        {"{\"of\": \"foo::b\"}", "unknown key \"of\" in \"variant_of\"; allowed: kind, none, op"},
        {"\"foo::b\"", "\"variant_of\" must be an object"}}) {
      Path file = write("bad.json", "{ \"library\": \"lib/libfoo.so\",\n  \"ops\": [ { \"op\": \"foo::a\", \"variant_of\": "
          + bad[0] + " } ] }\n");
      SpecException e = assertThrows(SpecException.class, () -> SpecReader.read(file), bad[0]);
      assertTrue(e.getMessage().startsWith(file.toAbsolutePath().normalize() + ":2:"), e.getMessage());
      assertTrue(e.getMessage().contains(bad[1]), e.getMessage());
    }
  }
}
