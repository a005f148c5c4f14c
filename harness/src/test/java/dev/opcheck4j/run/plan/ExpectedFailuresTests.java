package dev.opcheck4j.run.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.spec.SpecException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExpectedFailuresTests {
  static final String YAML = """
      # known failures of the bad corpus
      bad_ops::raises:
        kernel.error: raises on purpose   # the test of kernel.error
      bad_ops::no_meta:
        fake: no Meta kernel
        registration.device-kernel@meta: no Meta kernel
      "spec:bad/bad_ops.json":
        bad_ops::ghost:
          registration.dangling: implemented, never defined
      "tag:nightly":
        bad_ops::slow:
          kernel.timeout: only with the nightly deadline
      """;

  @Test
  void readsChecksFamiliesDevicesAndGroupsWithTheirLocations(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("xfail.yaml"), YAML);
    ExpectedFailures x = ExpectedFailures.read(file);
    assertEquals(List.of("bad_ops::raises kernel.error", "bad_ops::no_meta fake",
        "bad_ops::no_meta registration.device-kernel@meta", "bad_ops::ghost registration.dangling",
        "bad_ops::slow kernel.timeout"), x.entries().stream().map(e -> e.op() + " " + e.key()).toList());
    ExpectedFailures.Entry meta = x.entries().get(2);
    assertEquals("registration.device-kernel", meta.checks());
    assertEquals("meta", meta.device());
    assertTrue(meta.covers("registration.device-kernel", "meta"));
    assertTrue(!meta.covers("registration.device-kernel", "cpu"), "a device-limited entry covers that device only");
    assertTrue(x.entries().get(1).covers("fake.metadata", "cpu"), "a family's entry covers its checks");
    assertTrue(!x.entries().get(1).covers("fakeish.x", "cpu"));
    assertEquals(file + ":3:17", x.entries().get(0).location());
    assertEquals("spec:bad/bad_ops.json", x.entries().get(3).scope());
  }

  @Test
  void aGroupHoldsOnlyInTheRunOfItsSpecOrTag(@TempDir Path dir) throws Exception {
    ExpectedFailures x = ExpectedFailures.read(Files.writeString(dir.resolve("xfail.yaml"), YAML));
    Path bad = Path.of("/repo/fixtures/specs/bad/bad_ops.json");
    Path crash = Path.of("/repo/fixtures/specs/crash/crash_ops.json");
    assertEquals(3, x.activeIn(List.of(crash), List.of()).entries().size(), "the ungrouped entries only");
    assertEquals(4, x.activeIn(List.of(bad), List.of()).entries().size());
    assertEquals(5, x.activeIn(List.of(bad), List.of("nightly")).entries().size());
    assertTrue(ExpectedFailures.holdsFor("spec:bad/bad_ops.json", bad.toString()));
    assertTrue(!ExpectedFailures.holdsFor("spec:bad/bad_ops.json", crash.toString()));
  }

  @Test
  void anEntryNamingAnUnknownCheckIsAnErrorWithItsLocation(@TempDir Path dir) throws Exception {
    Path badCheck = Files.writeString(dir.resolve("c.json"), "{\n  \"bad_ops::raises\": {\"kernel.eror\": \"typo\"}\n}\n");
    SpecException e = assertThrows(SpecException.class, () -> ExpectedFailures.read(badCheck));
    assertEquals(badCheck + ":2:38: \"kernel.eror\" under \"bad_ops::raises\" is not a check id or family; did you mean"
        + " kernel.error?", e.getMessage());
  }

  @Test
  void anEntryNamingAnUnknownDeviceOrNoReasonIsAnError(@TempDir Path dir) throws Exception {
    Path device = Files.writeString(dir.resolve("d.yaml"), "a::b:\n  fake@gpu: why\n");
    assertEquals(device + ":2:13: \"fake@gpu\" under \"a::b\" names no device after @ (cpu, meta or cuda)",
        assertThrows(SpecException.class, () -> ExpectedFailures.read(device)).getMessage());
    Path blank = Files.writeString(dir.resolve("r.yaml"), "a::b:\n  fake: ''\n");
    assertTrue(assertThrows(SpecException.class, () -> ExpectedFailures.read(blank)).getMessage()
        .startsWith(blank + ":2:9: each expected failure needs a reason string"));
    Path notOp = Files.writeString(dir.resolve("o.yaml"), "fake: why\n");
    assertTrue(assertThrows(SpecException.class, () -> ExpectedFailures.read(notOp)).getMessage()
        .contains("\"fake\" is not an op (ns::name), nor a group (spec:PATH or tag:NAME)"));
  }

  @Test
  void anEntryNamingAnOpTheRunDoesNotKnowIsOneLocatedLine(@TempDir Path dir) throws Exception {
    ExpectedFailures x = ExpectedFailures.read(Files.writeString(dir.resolve("xfail.yaml"), YAML));
    x.activeIn(List.of(), List.of()).requireKnownOps(Set.of("bad_ops::raises", "bad_ops::no_meta"));
    SpecException typo = assertThrows(SpecException.class, () -> x.activeIn(List.of(), List.of())
        .requireKnownOps(Set.of("bad_ops::raise", "bad_ops::no_meta")));
    assertEquals(List.of(dir.resolve("xfail.yaml") + ":3:17: \"bad_ops::raises\" is not an op of this run; did you mean"
        + " bad_ops::raise?"), typo.lines());
    SpecException suite = assertThrows(SpecException.class, () -> x.requireNamespaces(Set.of("crash_ops")));
    assertTrue(suite.lines().get(0).contains("\"bad_ops::raises\" is not an op of this suite (its namespaces: crash_ops)"),
        suite.getMessage());
  }
}
