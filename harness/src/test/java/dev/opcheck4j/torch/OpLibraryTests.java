package dev.opcheck4j.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OpLibraryTests {

  @Test
  void loadsALibraryAndListsWhatItRegistered() throws Exception {
    OpLibrary lib = OpLibrary.load(NativeOps.lib("my_ops"));
    assertTrue(lib.ops().contains("my_ops::warp_perspective"), lib.ops().toString());
    assertTrue(lib.ops().contains("my_ops::mul_add"), lib.ops().toString());
    assertEquals(java.util.Set.of("my_ops"), lib.namespaces());
    assertTrue(lib.danglingImpls().isEmpty());
  }

  @Test
  void aLibraryThatDoesNotLinkLibtorchStillLoadsAndRuns() throws Exception {
    OpLibrary lib = OpLibrary.load(NativeOps.lib("unlinked_ops"));
    assertEquals(List.of("unlinked_ops::twice"), lib.ops());
    org.bytedeco.pytorch.IValueVector stack = new org.bytedeco.pytorch.IValueVector();
    stack.push_back(new org.bytedeco.pytorch.IValue(org.bytedeco.pytorch.global.torch.ones(2)));
    lib.op("unlinked_ops::twice").handle().callBoxed(stack);
    assertEquals(4.0, new org.bytedeco.pytorch.IValue(stack.get(0)).toTensor().sum().item().toDouble(), "twice(ones(2)) sums to 4");
  }

  @Test
  void loadingTheSameLibraryTwiceGivesTheSameOps() throws Exception {
    assertSame(OpLibrary.load(NativeOps.lib("good_ops")), OpLibrary.load(NativeOps.lib("good_ops")));
  }

  @Test
  void missingFileNamesThePath() {
    LibraryLoadException e =
        assertThrows(LibraryLoadException.class, () -> OpLibrary.load(Path.of("/nonexistent/libx.so")));
    assertEquals("library not found: /nonexistent/libx.so", e.getMessage());
  }

  @Test
  void aTextFileIsNotASharedLibrary(@TempDir Path dir) throws IOException {
    Path text = Files.writeString(dir.resolve("libfake.so"), "hello\n");
    LibraryLoadException e = assertThrows(LibraryLoadException.class, () -> OpLibrary.load(text));
    assertEquals("not a shared library (no ELF header): " + text.toRealPath(), e.getMessage());
  }

  @Test
  void aLibraryWithNoOpsIsRejected() {
    LibraryLoadException e =
        assertThrows(LibraryLoadException.class, () -> OpLibrary.load(NativeOps.lib("no_ops")));
    assertTrue(e.getMessage().startsWith("library registers no operators: "), e.getMessage());
    assertTrue(e.getMessage().contains("libno_ops.so"), e.getMessage());
  }

  @Test
  void anUnresolvedSymbolIsNamed() {
    LibraryLoadException e =
        assertThrows(LibraryLoadException.class, () -> OpLibrary.load(NativeOps.lib("unresolved")));
    assertTrue(e.getMessage().startsWith("unresolved symbol opcheck4j_missing_symbol in "), e.getMessage());
  }

  /**
   * A classic TORCH_LIBRARY library compiled with other headers than 2.10's is refused before it is
   * loaded (loaded, its static initializer would end the process), naming the symbol, demangled.
   */
  @Test
  void aClassicAutogradFunctionBuiltWith214HeadersIsRefusedNamingTheSymbolsAndTheLikelyHeaders() throws IOException {
    Path lib = NativeOps.otherHeadersFixture().toRealPath();
    LibraryLoadException e = assertThrows(LibraryLoadException.class, () -> OpLibrary.load(lib));
    assertTrue(e.getMessage().startsWith(lib + ": undefined symbols torch::autograd::"), e.getMessage());
    assertTrue(e.getMessage().contains("torch::autograd::fire_node_creation_hooks(c10::intrusive_ptr<torch::autograd::Node"), e.getMessage());
    assertTrue(e.getMessage().contains("torch::autograd::_wrap_outputs(std::vector<at::Tensor"), e.getMessage());
    assertTrue(e.getMessage().contains(": built against another libtorch than the 2.13.0 this harness runs; "
        + "rebuild against 2.13.0's headers (see docs/op-library.md), or port to the stable ABI"), e.getMessage());
    assertTrue(e.getMessage().endsWith(" (probably built with libtorch 2.14's headers: a torch::autograd::Function built with them "
        + "asks for torch::autograd::fire_node_creation_hooks, which 2.13.0 does not export)"), e.getMessage());
  }

  @Test
  void aStableLibraryForANewerStableAbiIsRefusedNamingTheFunction() throws IOException {
    Path lib = NativeOps.lib("newer_stable_ops").toRealPath();
    LibraryLoadException e = assertThrows(LibraryLoadException.class, () -> OpLibrary.load(lib));
    assertEquals(lib + " calls torch_has_storage, which libtorch 2.13.0's stable ABI does not have: built for a newer stable ABI "
        + "(TORCH_TARGET_VERSION above 2.13, or none with newer headers); rebuild with -DTORCH_TARGET_VERSION=0x020d000000000000 "
        + "(see docs/op-library.md)", e.getMessage());
  }

  @Test
  void aLibraryLinkedAgainstAnotherLibtorchIsRefusedNamingIt() throws IOException {
    Path lib = NativeOps.lib("other_libtorch_ops").toRealPath();
    LibraryLoadException e = assertThrows(LibraryLoadException.class, () -> OpLibrary.load(lib));
    assertTrue(e.getMessage().startsWith(lib + " needs libtorch_cpu.so.2.14, which is not this harness's libtorch ("), e.getMessage());
    assertTrue(e.getMessage().contains("libtorch_cpu.so") && e.getMessage().endsWith("or port to the stable ABI"), e.getMessage());
  }

  @Test
  void anUnknownOpSuggestsTheNearestNames() throws Exception {
    OpLibrary lib = OpLibrary.load(NativeOps.lib("my_ops"));
    UnknownOpException e = assertThrows(UnknownOpException.class, () -> lib.op("my_ops::warp_perspectiv"));
    assertEquals(List.of("my_ops::warp_perspective"), e.suggestions().subList(0, 1));
    assertTrue(e.getMessage().contains("did you mean my_ops::warp_perspective"), e.getMessage());
  }

  @Test
  void danglingImplsAreFoundInTheLibrarysNamespace() throws Exception {
    OpLibrary lib = OpLibrary.load(NativeOps.lib("bad_ops"));
    assertEquals(List.of("bad_ops::ghost"), lib.danglingImpls());
    assertTrue(!lib.ops().contains("bad_ops::ghost"), "a dangling impl has no schema, so it is not an op");
  }

  @Test
  void linkErrorsAreDescribedByKind() {
    Path p = Path.of("/x/libop.so");
    assertEquals(
        "/x/libop.so needs libfoo.so.1, which the dynamic loader cannot find",
        OpLibrary.describeLinkError(p, "/x/libop.so: libfoo.so.1: cannot open shared object file: No such file or directory"));
  }
}
