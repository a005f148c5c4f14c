package dev.opcheck4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generated library of {@code bench library}, {@code shapes} and {@code crashes}: its kinds, and one line when it cannot be built. */
class SyntheticLibraryTests {
  @TempDir Path tmp;

  /** The spec and the source of a library of {@code ops} ops of {@code flavor}, as written. */
  private List<String> written(int ops, SyntheticLibrary.Flavor flavor) throws Exception {
    SyntheticLibrary lib = new SyntheticLibrary(tmp.resolve(flavor.name()), ops, flavor);
    lib.write();
    return List.of(Files.readString(lib.spec()), Files.readString(lib.source()));
  }

  private static void assertHas(String text, String... parts) {
    for (String p : parts) {
      assertTrue(text.contains(p), p + " in " + text);
    }
  }

  @Test
  void theOpsTakeTheFiveKindsInTurnEachWithOneExample() throws Exception {
    List<String> lib = written(7, SyntheticLibrary.Flavor.PLAIN);
    for (String op : new String[] {"ew_0", "inplace_1", "pair_2", "rowsum_3", "comp_4", "ew_5", "inplace_6"}) {
      assertHas(lib.get(0), "\"bench_ops::" + op + "\"");
    }
    assertEquals(7, lib.get(0).split("\"examples\"", -1).length - 1);
    assertHas(lib.get(1), "m.def(\"inplace_1(Tensor(a!) x, float s) -> ()\");", "m.impl(\"comp_4\", TORCH_BOX(&comp<4>));");
  }

  @Test
  void theShapesFlavorHasAMatmulAndACompositeOfTwoTensorsOfOneShape() throws Exception {
    List<String> lib = written(5, SyntheticLibrary.Flavor.SHAPES);
    for (String op : new String[] {"ew_0", "inplace_1", "pair_2", "mm_3", "diff_4"}) {
      assertHas(lib.get(0), "\"bench_ops::" + op + "\"");
    }
    assertHas(lib.get(0), "[ {\"tensor\": [3, 4]}, {\"tensor\": [4, 5]} ]");
    assertHas(lib.get(1), "m.def(\"diff_4(Tensor x, Tensor y, float s) -> Tensor\");",
        "m.impl(\"mm_3\", TORCH_BOX(&mm_meta<3>));", "m.impl(\"diff_4\", TORCH_BOX(&diff<4>));");
  }

  @Test
  void theCrashesFlavorIsOneKindOfElementwiseOpWithAMetaKernel() throws Exception {
    List<String> lib = written(3, SyntheticLibrary.Flavor.CRASHES);
    for (int i = 0; i < 3; i++) {
      assertHas(lib.get(1), "m.impl(\"crash_" + i + "\", TORCH_BOX(&crash<" + i + ">));",
          "m.impl(\"crash_" + i + "\", TORCH_BOX(&crash_meta<" + i + ">));");
    }
    assertHas(lib.get(1), "BENCH_OPS_NO_CRASH");
  }

  @Test
  void theShardsFlavorIsElementwiseOpsOfWhichOps2And6And17SpinWithAMetaKernel() throws Exception {
    List<String> lib = written(20, SyntheticLibrary.Flavor.SHARDS);
    for (int i = 0; i < 20; i++) {
      String name = List.of(2, 6, 17).contains(i) ? "spin" : "ew";
      assertHas(lib.get(0), "\"bench_ops::" + name + "_" + i + "\"");
      assertHas(lib.get(1), "m.impl(\"" + name + "_" + i + "\", TORCH_BOX(&" + name + "_meta<" + i + ">));");
    }
    assertEquals(3, lib.get(0).split("bench_ops::spin_", -1).length - 1);
  }

  @Test
  void theCompositesFlavorIsThreeKernelOpsAndTwoAtenCompositesInEveryFiveEachOfTwoTensorsOfOneShapeAndAScalar()
      throws Exception {
    List<String> lib = written(200, SyntheticLibrary.Flavor.COMPOSITES);
    String[] stems = {"axpy", "mix", "blend", "diff", "rowdot"};
    for (int i = 0; i < 200; i++) {
      String name = stems[i % 5] + "_" + i;
      boolean composite = i % 5 == 1 || i % 5 == 3;
      // a correct library declares its backend-only kernels non-differentiable; its composites are differentiable
      assertHas(lib.get(0), "\"bench_ops::" + name + "\", " + (composite ? "" : "\"differentiable\": false, ") + "\"examples\"");
      assertHas(lib.get(1), "m.def(\"" + name + "(Tensor x, Tensor y, float s) -> Tensor\");");
      assertHas(lib.get(1), "m.impl(\"" + name + "\", TORCH_BOX(&" + stems[i % 5] + (composite ? "" : "_meta") + "<" + i + ">));");
    }
    assertEquals(200, lib.get(0).split("\"examples\"", -1).length - 1);
    assertEquals(1, lib.get(1).split("STABLE_TORCH_LIBRARY_IMPL\\(bench_ops, CompositeImplicitAutograd, m\\)", -1).length - 1);
    assertEquals(80, lib.get(1).split("TORCH_BOX\\(&(mix|diff)<", -1).length - 1, "two composites in every five");
    // the kernels check dtype and shape; the Meta kernel of blend only the shapes, rowdot's only x's dimensions
    assertHas(lib.get(1), "STD_TORCH_CHECK(x.scalar_type() == y.scalar_type()", "\"x and y must have one shape\"",
        "Tensor blend_meta(Tensor x, Tensor y, double s) {\n  check_shape(x, y);",
        "Tensor rowdot_meta(Tensor x, Tensor y, double s) {\n  STD_TORCH_CHECK(x.dim() >= 1");
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
