package dev.opcheck4j.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;

/** The plain-Java schema parser and compatibility rules agree with libtorch's own. */
class SchemaTextTests {
  @Test
  void parsesEveryRegisteredSchemaOfKnownTypesAsLibtorchDoes() throws Exception {
    for (String lib : List.of("my_ops", "good_ops", "bad_ops")) {
      OpLibrary.load(NativeOps.lib(lib));
    }
    int parsed = 0;
    List<String> wrong = new ArrayList<>();
    for (String name : OpLibrary.allOpNames()) {
      if (!Operators.hasSchema(name)) {
        continue;
      }
      OpSchema native_ = Operators.find(name).schema();
      OpSchema java;
      try {
        java = SchemaText.parse(native_.toString());
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage().contains("expected a type"), e.getMessage());
        continue;
      }
      parsed++;
      if (!java.equals(native_)) {
        wrong.add(native_ + "\n   java: " + java);
      }
    }
    assertEquals(List.of(), wrong.subList(0, Math.min(5, wrong.size())), wrong.size() + " schemas differ");
    assertTrue(parsed > 1000, "only " + parsed + " schemas parsed");
  }

  @Test
  void thePlainJavaComparisonFindsTheSameBreaksAsLibtorchOnTheV2Changes() {
    TorchRuntime.get();
    String[][] pairs = {
      {"compat::renamed(Tensor x, float scale) -> Tensor", "compat::renamed(Tensor x, float factor) -> Tensor",
          "argument 'scale' renamed to 'factor'"},
      {"compat::retyped(Tensor x, int n) -> Tensor", "compat::retyped(Tensor x, float n) -> Tensor",
          "argument 'n' changed type from int to float"},
      {"compat::defaulted(Tensor x, int n=2) -> Tensor", "compat::defaulted(Tensor x, int n) -> Tensor",
          "argument 'n' lost its default (=2)"},
      {"compat::mutated(Tensor x, Tensor y) -> Tensor", "compat::mutated(Tensor x, Tensor(a!) y) -> Tensor",
          "argument 'y' changed its alias annotation from none to (a!)"}};
    DispatchTable table = new DispatchTable(java.util.Map.of("CPU", "here"));
    for (String[] p : pairs) {
      var entry = new SchemaBaseline.Entry(p[0].substring(0, p[0].indexOf('(')), p[0], List.of("CPU"), List.of());
      assertEquals(List.of(new SchemaCompatibility.Break(p[2], p[0], p[1])),
          SchemaCompatibility.compare(entry, SchemaText.parse(p[1]), table));
      assertEquals(false, torch.parseSchema(p[1]).isBackwardCompatibleWith(torch.parseSchema(p[0])));
    }
    var ok = new SchemaBaseline.Entry("compat::extended", "compat::extended(Tensor x) -> Tensor", List.of("CPU", "Meta"),
        List.of());
    assertEquals(List.of(new SchemaCompatibility.Break("the Meta kernel is gone", "kernels at CPU, Meta", "kernels at CPU")),
        SchemaCompatibility.compare(ok, SchemaText.parse("compat::extended(Tensor x, float alpha=1.0) -> Tensor"), table));
  }

  @Test
  void aSchemaItCannotReadNamesTheColumn() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SchemaText.parse("ns::op(Tensor x"));
    assertEquals("schema 'ns::op(Tensor x' at column 16: expected ','", e.getMessage());
  }

  static final List<String> VARIANTS = List.of(
      "t::op(Tensor x, int n=2) -> Tensor",
      "t::op(Tensor x, int n) -> Tensor",
      "t::op(Tensor x, int n=3) -> Tensor",
      "t::op(Tensor x, int m=2) -> Tensor",
      "t::op(Tensor x, float n=2.0) -> Tensor",
      "t::op(Tensor x, Scalar n=2) -> Tensor",
      "t::op(Tensor x, int? n=2) -> Tensor",
      "t::op(Tensor x, int n=2, float s=1.0) -> Tensor",
      "t::op(Tensor x, int n=2, float s=2.0) -> Tensor",
      "t::op(Tensor(a!) x, int n=2) -> Tensor",
      "t::op(Tensor x, *, int n=2) -> Tensor",
      "t::op(Tensor x) -> Tensor",
      "t::op(Tensor? x, int n=2) -> Tensor",
      "t::op(Tensor x, int n=2) -> Tensor?",
      "t::op(Tensor x, int n=2) -> (Tensor, Tensor)",
      "t::op(Tensor x, int[] n=[2]) -> Tensor",
      "t::op(Tensor x, int n=2, *, Tensor(a!) out) -> Tensor(a!)",
      "t::op(Tensor x, int n=2, float s=1.0, *, Tensor(a!) out) -> Tensor(a!)",
      "t::op(Tensor x, int n=2) -> Tensor(a)");

  @Test
  void backwardCompatibilityAgreesWithLibtorchOnEveryPair() {
    TorchRuntime.get();
    List<String> disagree = new ArrayList<>();
    int compatible = 0;
    for (String old : VARIANTS) {
      for (String now : VARIANTS) {
        boolean libtorch = torch.parseSchema(now).isBackwardCompatibleWith(torch.parseSchema(old));
        boolean java = SchemaCompatibility.backwardCompatible(SchemaText.parse(now), SchemaText.parse(old));
        if (libtorch != java) {
          disagree.add(old + "  ->  " + now + ": libtorch " + libtorch + ", java " + java);
        }
        compatible += libtorch ? 1 : 0;
      }
    }
    assertEquals(List.of(), disagree);
    assertTrue(compatible > VARIANTS.size(), "some changes must be compatible besides no change: " + compatible);
  }
}
