package dev.opcheck4j.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class OpCheckTests {

  static DynamicTest find(List<DynamicNode> nodes, String op, String test) {
    DynamicContainer c = (DynamicContainer) nodes.stream().filter(n -> n.getDisplayName().equals(op)).findFirst().orElseThrow();
    return (DynamicTest) c.getChildren().filter(n -> n.getDisplayName().equals(test)).findFirst().orElseThrow();
  }

  @Test
  void aContainerPerOpAndATestPerCheckAndDevice() throws Throwable {
    List<DynamicNode> nodes = OpCheck.library(NativeOps.lib("good_ops")).checks("registration").tries(0).dynamicTests().toList();
    assertTrue(nodes.stream().anyMatch(n -> n.getDisplayName().equals("good_ops::add_scalar")));
    DynamicTest cpu = find(nodes, "good_ops::add_scalar", "registration.device-kernel on cpu");
    cpu.getExecutable().execute();
  }

  @Test
  void aBaselineAddsSchemaCompatibleWithATestPerOpItKnew(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Throwable {
    var lib = dev.opcheck4j.torch.OpLibrary.load(NativeOps.lib("good_ops"));
    var now = dev.opcheck4j.torch.SchemaBaseline.record(lib);
    var entries = new java.util.ArrayList<>(now.ops());
    entries.add(new dev.opcheck4j.torch.SchemaBaseline.Entry("good_ops::gone", "good_ops::gone(Tensor x) -> Tensor",
        List.of("CPU"), List.of()));
    java.nio.file.Path file = dir.resolve("b.json");
    new dev.opcheck4j.torch.SchemaBaseline(now.format(), now.library(), now.libtorch(), entries).write(file);
    List<DynamicNode> nodes = OpCheck.library(NativeOps.lib("good_ops")).checks("schema.compatible").baseline(file)
        .tries(0).dynamicTests().toList();
    find(nodes, "good_ops::add_scalar", "schema.compatible").getExecutable().execute();
    AssertionFailedError e = assertThrows(AssertionFailedError.class,
        () -> find(nodes, "good_ops::gone", "schema.compatible").getExecutable().execute());
    assertTrue(e.getMessage().contains("but was  : removed: libgood_ops.so does not register it"), e.getMessage());
  }

  @Test
  void expectedFailuresThatNameAnUnknownCheckOrOpAreErrorsWithTheirLocation(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path badCheck = java.nio.file.Files.writeString(dir.resolve("c.json"),
        "{\n  \"bad_ops::raises\": {\"kernel.eror\": \"typo\"}\n}\n");
    dev.opcheck4j.spec.SpecException e = assertThrows(dev.opcheck4j.spec.SpecException.class, () -> ExpectedFailures.read(badCheck));
    assertTrue(e.getMessage().startsWith(badCheck + ":2:38: \"kernel.eror\" under \"bad_ops::raises\" is not a check id"), e.getMessage());
    java.nio.file.Path badOp = java.nio.file.Files.writeString(dir.resolve("o.json"),
        "{\n  \"bad_ops::raise\": {\"kernel.error\": \"typo\"}\n}\n");
    e = assertThrows(dev.opcheck4j.spec.SpecException.class,
        () -> OpCheck.library(NativeOps.lib("bad_ops")).checks("schema").tries(0).expectedFailures(badOp).run());
    assertTrue(e.getMessage().startsWith(badOp + ":2:21: \"bad_ops::raise\" is not an op libbad_ops.so registers"), e.getMessage());
  }

  @Test
  void aFailureRendersItsFacts() throws Exception {
    List<DynamicNode> nodes = OpCheck.library(NativeOps.lib("bad_ops")).checks("schema.types").tries(0).dynamicTests().toList();
    AssertionFailedError e = assertThrows(AssertionFailedError.class,
        () -> find(nodes, "bad_ops::dict_arg", "schema.types").getExecutable().execute());
    assertTrue(e.getMessage().startsWith("FAILED [schema.types] bad_ops::dict_arg\n  expected : custom-op types only"), e.getMessage());
  }

  @Test
  void aCheckThatCouldNotRunIsAbortedWithItsReason() throws Exception {
    List<DynamicNode> nodes = OpCheck.library(NativeOps.lib("good_ops")).checks("registration").devices("cuda").tries(0)
        .dynamicTests().toList();
    if (dev.opcheck4j.torch.TorchRuntime.get().cudaAvailable()) {
      return;
    }
    TestAbortedException e = assertThrows(TestAbortedException.class,
        () -> find(nodes, "good_ops::add_scalar", "registration.device-kernel on cuda").getExecutable().execute());
    assertTrue(e.getMessage().contains("no CUDA device"), e.getMessage());
  }

  @Test
  void anExpectedFailureThatFailsPassesAndOneThatStopsFailingFails() throws Throwable {
    ExpectedFailures xfail = new ExpectedFailures(Map.of(
        "bad_ops::dict_arg", Map.of("schema.types", "Dict argument kept for compatibility"),
        "bad_ops::scale_", Map.of("schema.types", "pretend this used to fail")));
    List<DynamicNode> nodes = OpCheck.library(NativeOps.lib("bad_ops")).checks("schema.types").tries(0)
        .expectedFailures(xfail).dynamicTests().toList();
    find(nodes, "bad_ops::dict_arg", "schema.types").getExecutable().execute();
    AssertionFailedError e = assertThrows(AssertionFailedError.class,
        () -> find(nodes, "bad_ops::scale_", "schema.types").getExecutable().execute());
    assertEquals("[schema.types] bad_ops::scale_ is listed as an expected failure (pretend this used to fail) but"
        + " failed on no device: remove it from the expected failures", e.getMessage());
  }
}
