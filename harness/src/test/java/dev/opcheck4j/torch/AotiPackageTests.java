package dev.opcheck4j.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An AOTInductor package read in plain Java: no libtorch in this process. */
class AotiPackageTests {
  static final Path MODELS = NativeOps.repoRoot().resolve("fixtures/models");

  @Test
  void theFixturePackageRecordsEachCallWithItsArgumentsNamesSerializedTypesAndValues() throws Exception {
    AotiPackage pkg = AotiPackage.read(MODELS.resolve("aoti/aoti_ops.pt2"));
    assertEquals("model", pkg.model());
    assertEquals("cpu", pkg.device().orElseThrow());
    assertEquals("linux", pkg.metadata().get("AOTI_PLATFORM"));
    assertEquals(List.of("aoti_ops::twice", "aoti_ops::total", "aoti_ops::shift", "aoti_ops::scale", "aoti_ops::flip",
        "aoti_ops::affine", "aoti_ops::weighted", "aoti_ops::split_sign", "aoti_ops::square_into", "aoti_ops::gone",
        "aoti_ops::retyped", "aoti_ops::renamed", "aoti_ops::mutated", "aoti_ops::defaulted", "aoti_ops::extended"),
        pkg.ops());
    assertEquals(16, pkg.calls().size(), "affine is called twice");
    assertEquals("aoti_ops::renamed(x: as_tensor, scale: as_float 0.25) -> (as_tensor)",
        pkg.callsOf("aoti_ops::renamed").get(0).describe());
    assertEquals("aoti_ops::total(xs: as_tensors) -> (as_tensor)", pkg.callsOf("aoti_ops::total").get(0).describe());
    assertEquals("[arg0_1, arg1_1, buf1]", pkg.callsOf("aoti_ops::total").get(0).input("xs").orElseThrow().value(),
        "the buffers a Tensor[] passes: the package's inputs and one of its own");
    assertEquals(List.of("as_tensor", "as_tensor"), pkg.callsOf("aoti_ops::split_sign").get(0).outputs());
    AotiPackage.ExternCall into = pkg.callsOf("aoti_ops::square_into").get(0);
    assertEquals(List.of(), into.outputs(), "an op that returns nothing records no output");
    assertTrue(into.input("out").orElseThrow().keyword(), "the keyword-only out= argument is passed by keyword");
    AotiPackage.ExternCall defaulted = pkg.callsOf("aoti_ops::defaulted").get(0);
    assertEquals("2", defaulted.input("n").orElseThrow().value(), "Inductor records the default's value");
    assertEquals(List.of("as_none", "as_float"), pkg.callsOf("aoti_ops::affine").get(0).inputs().stream().skip(1)
        .map(AotiPackage.CallArgument::kind).toList());
    assertEquals(List.of("as_tensor", "as_none"), pkg.callsOf("aoti_ops::affine").get(1).inputs().stream().skip(1)
        .map(AotiPackage.CallArgument::kind).toList());
  }

  @Test
  void aCompositeOpIsNotCalledThroughTheProxyExecutor() throws Exception {
    // my_ops::crop is CompositeImplicitAutograd: Inductor compiles what it computes into the package's own code
    AotiPackage pkg = AotiPackage.read(MODELS.resolve("aoti/my_ops.pt2"));
    assertEquals(List.of("my_ops::warp_perspective", "my_ops::mul_add"), pkg.ops());
    assertEquals(List.of("my_ops::warp_perspective.classic"), AotiPackage.read(MODELS.resolve("aoti/warp_classic.pt2")).ops());
  }

  @Test
  void aTorchScriptArchiveOrAnyOtherFileIsNoPackage(@TempDir Path dir) throws Exception {
    assertTrue(AotiPackage.isPackage(MODELS.resolve("aoti/aoti_ops.pt2")));
    assertFalse(AotiPackage.isPackage(MODELS.resolve("warp_model.pt")), "a TorchScript archive is a zip too");
    Path text = Files.writeString(dir.resolve("x.pt2"), "not a zip");
    assertFalse(AotiPackage.isPackage(text));
    String e = assertThrows(AotiPackage.Unreadable.class, () -> AotiPackage.read(text)).getMessage();
    assertTrue(e.startsWith(text + " is not a zip archive"), e);
    String ts = assertThrows(AotiPackage.Unreadable.class, () -> AotiPackage.read(MODELS.resolve("warp_model.pt")))
        .getMessage();
    assertTrue(ts.contains("is no AOTInductor package: it holds no data/aotinductor/ folder"), ts);
  }

  @Test
  void libtorchsOwnOpsAreTold() {
    assertTrue(AotiPackage.libtorchOwn("aten::index_put_"));
    assertFalse(AotiPackage.libtorchOwn("aoti_ops::twice"));
  }
}
