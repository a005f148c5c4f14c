package dev.opcheck4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generated library of {@code bench library}, {@code shapes} and {@code crashes}: its kinds, and one line when it cannot be built. */
class SyntheticLibraryTests {
  @TempDir Path tmp;

  @Test
  void theOpsTakeTheFiveKindsInTurnEachWithOneExample() throws Exception {
    SyntheticLibrary lib = new SyntheticLibrary(tmp.resolve("lib"), 7);
    lib.write();
    String spec = Files.readString(lib.spec());
    for (String op : new String[] {"ew_0", "inplace_1", "pair_2", "rowsum_3", "comp_4", "ew_5", "inplace_6"}) {
      assertTrue(spec.contains("\"bench_ops::" + op + "\""), op);
    }
    assertEquals(7, spec.split("\"examples\"", -1).length - 1);
    String cpp = Files.readString(lib.source());
    assertTrue(cpp.contains("m.def(\"inplace_1(Tensor(a!) x, float s) -> ()\");"), cpp);
    assertTrue(cpp.contains("m.impl(\"comp_4\", TORCH_BOX(&comp<4>));"), cpp);
  }

  @Test
  void theShapesFlavorHasAMatmulAndACompositeOfTwoTensorsOfOneShape() throws Exception {
    SyntheticLibrary lib = new SyntheticLibrary(tmp.resolve("shapes"), 5, SyntheticLibrary.Flavor.SHAPES);
    lib.write();
    String spec = Files.readString(lib.spec());
    for (String op : new String[] {"ew_0", "inplace_1", "pair_2", "mm_3", "diff_4"}) {
      assertTrue(spec.contains("\"bench_ops::" + op + "\""), op);
    }
    assertTrue(spec.contains("[ {\"tensor\": [3, 4]}, {\"tensor\": [4, 5]} ]"), spec);
    String cpp = Files.readString(lib.source());
    assertTrue(cpp.contains("m.def(\"diff_4(Tensor x, Tensor y, float s) -> Tensor\");"), cpp);
    assertTrue(cpp.contains("m.impl(\"mm_3\", TORCH_BOX(&mm_meta<3>));"), cpp);
    assertTrue(cpp.contains("m.impl(\"diff_4\", TORCH_BOX(&diff<4>));"), cpp);
  }

  @Test
  void theCrashesFlavorIsOneKindOfElementwiseOpWithAMetaKernel() throws Exception {
    SyntheticLibrary lib = new SyntheticLibrary(tmp.resolve("crashes"), 3, SyntheticLibrary.Flavor.CRASHES);
    lib.write();
    String cpp = Files.readString(lib.source());
    for (int i = 0; i < 3; i++) {
      assertTrue(cpp.contains("m.impl(\"crash_" + i + "\", TORCH_BOX(&crash<" + i + ">));"), cpp);
      assertTrue(cpp.contains("m.impl(\"crash_" + i + "\", TORCH_BOX(&crash_meta<" + i + ">));"), cpp);
    }
    assertTrue(cpp.contains("BENCH_OPS_NO_CRASH"), cpp);
  }

  @Test
  void withoutTheHeadersTheBuildStopsWithOneLineSayingHowToGetThem() throws Exception {
    SyntheticLibrary lib = new SyntheticLibrary(tmp.resolve("lib"), 5);
    lib.write();
    SyntheticLibrary.BuildError e = assertThrows(SyntheticLibrary.BuildError.class, () -> lib.build(tmp.resolve("no-home")));
    assertTrue(e.getMessage().startsWith("the LibTorch headers are not available"), e.getMessage());
    assertTrue(e.getMessage().contains("mvn -o -B -q -pl native-ops package"), e.getMessage());
    assertEquals(1, e.getMessage().lines().count());
  }
}
