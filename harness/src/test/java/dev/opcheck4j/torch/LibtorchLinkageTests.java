package dev.opcheck4j.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading an op library's ELF file for what it needs from libtorch, in plain Java, before it is loaded. */
class LibtorchLinkageTests {

  @Test
  void libtorchsSymbolsAreKnownByTheirOutermostNamespace() {
    for (String s : List.of(
        "_ZNR5torch7Library4_defEON3c1014FunctionSchemaEPNS1_12OperatorNameERKSt6vectorINS_10headeronly3TagESaIS8_EENS_17_RegisterOrVerifyE",
        "_ZN3c1019UndefinedTensorImpl10_singletonE", "_ZNK3c1010TensorImpl15decref_pyobjectEv",
        "_ZN2at4_ops10mul_Scalar4callERKNS_6TensorERKN3c106ScalarE", "_ZTVN5torch8autograd4NodeE",
        "_ZN6caffe28TypeMeta5errorEv", "aoti_torch_library_def", "torch_library_def_with_tags")) {
      assertTrue(LibtorchLinkage.isLibtorchSymbol(s), s);
    }
    for (String s : List.of("_ZNSt6localeC1Ev", "_ZN2cv4warpEv", "_ZN6torchy1fEv", "opcheck4j_missing_function",
        "_Z5twicev", "_ZN10__cxxabiv117__class_type_infoE", "_ZdlPvm", "memcpy")) {
      assertFalse(LibtorchLinkage.isLibtorchSymbol(s), s);
    }
  }

  @Test
  void anElfFileSaysWhatItNeedsAndLacks() throws IOException {
    SharedObject classic = SharedObject.read(NativeOps.lib("classic_other_headers")).orElseThrow();
    assertTrue(classic.needed().containsAll(List.of("libtorch_cpu.so", "libc10.so")), classic.needed().toString());
    assertTrue(classic.undefined().stream().anyMatch(u -> u.name().startsWith("_ZNR5torch7Library4_def")
        && u.version() == null), "an untagged undefined libtorch symbol");
    assertTrue(classic.undefined().stream().anyMatch(u -> "GLIBCXX_3.4".equals(u.version())
        && "libstdc++.so.6".equals(u.versionFile())), "version tags are read with their library");
    assertEquals("libtorch_cpu.so.2.14", SharedObject.read(NativeOps.lib("torch_cpu_other_release")).orElseThrow().soname());
    assertEquals(List.of("libtorch_cpu.so.2.14"), SharedObject.read(NativeOps.lib("other_libtorch_ops")).orElseThrow()
        .needed().stream().filter(n -> n.contains("torch")).toList());
  }

  @Test
  void aDefinedSymbolIsFoundThroughTheHashTableAndAnUndefinedOneIsNot() throws IOException {
    SharedObject good = SharedObject.read(NativeOps.lib("no_ops")).orElseThrow();
    assertTrue(good.defines("opcheck4j_no_ops_marker"));
    assertFalse(good.defines("opcheck4j_no_ops_marke"));
    assertFalse(good.defines("memcpy"), "undefined in it: not defined by it");
  }

  @Test
  void aTextFileIsNoSharedObject() throws IOException {
    assertTrue(SharedObject.read(NativeOps.source("no_ops.cpp")).isEmpty());
  }
}
