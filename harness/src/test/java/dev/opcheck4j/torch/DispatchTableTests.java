package dev.opcheck4j.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.util.List;
import org.junit.jupiter.api.Test;

class DispatchTableTests {

  @Test
  void warpPerspectiveHasCpuAndMetaKernels() throws Exception {
    DispatchTable t = OpLibrary.load(NativeOps.lib("my_ops")).op("my_ops::warp_perspective").table();
    assertEquals(List.of("CPU", "Meta"), List.copyOf(t.keys()));
    assertTrue(t.kernels().get("CPU").contains("my_ops.cpp:"), t.kernels().toString());
    assertTrue(t.serves(Device.CPU));
    assertTrue(t.serves(Device.META));
    assertFalse(t.serves(Device.CUDA));
    assertFalse(t.hasAutograd(Device.CPU));
  }

  @Test
  void compositeKernelsServeEveryDeviceAndGiveAutograd() throws Exception {
    DispatchTable t = OpLibrary.load(NativeOps.lib("good_ops")).op("good_ops::scaled_square").table();
    assertEquals(List.of("CompositeImplicitAutograd"), List.copyOf(t.keys()));
    assertTrue(t.serves(Device.CUDA));
    assertTrue(t.hasAutograd(Device.CPU));
  }

  @Test
  void parsesADumpWithHeaderLinesAndAliasKeys() {
    String dump =
        """
        name: ns::op
        schema: ns::op(Tensor x) -> Tensor
        debug: registered at /src/op.cpp:10
        alias analysis kind: FROM_SCHEMA
        CPU: registered at /src/op.cpp:12 :: (none) [ boxed ]
        CompositeExplicitAutograd[alias]: registered at /src/op.cpp:14 :: (none) [ boxed ]
        """;
    DispatchTable t = DispatchTable.parse(dump);
    assertEquals(List.of("CPU", "CompositeExplicitAutograd"), List.copyOf(t.keys()));
    assertEquals("/src/op.cpp:12", t.kernels().get("CPU"));
  }

  /** PyG's ops (and extensions older than TORCH_LIBRARY) register with torch::RegisterOperators: no site. */
  @Test
  void aKernelRegisteredByRegisterOperatorsIsAKernel() {
    String dump =
        """
        name: torch_scatter::segment_mean_csr
        schema: torch_scatter::segment_mean_csr(Tensor _0, Tensor _1, Tensor? _2) -> Tensor _0
        debug: registered at /src/segment_csr.cpp:120
        alias analysis kind: CONSERVATIVE
        CompositeImplicitAutograd[alias]: registered by RegisterOperators :: (none) [ boxed unboxed ]
        """;
    DispatchTable t = DispatchTable.parse(dump);
    assertEquals(List.of("CompositeImplicitAutograd"), List.copyOf(t.keys()));
    assertTrue(t.serves(Device.CPU));
    assertEquals("CompositeImplicitAutograd registered by RegisterOperators", t.describe("CompositeImplicitAutograd"));
    assertEquals("CPU registered at /src/op.cpp:12", DispatchTable.parse("CPU: registered at /src/op.cpp:12 :: x").describe("CPU"));
  }

  @Test
  void anOpWithNoKernelHasAnEmptyTable() throws Exception {
    assertTrue(OpLibrary.load(NativeOps.lib("bad_ops")).op("bad_ops::no_kernel").table().isEmpty());
  }
}
