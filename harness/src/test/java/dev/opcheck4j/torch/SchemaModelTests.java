package dev.opcheck4j.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SchemaModelTests {

  /** Real schemas: aten's own spellings and the bundled ops'. Each must render back to itself. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
        "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
        "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
        "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        "aten::cat(Tensor[] tensors, int dim=0) -> Tensor",
        "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
        "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
        "aten::dropout(Tensor input, float p, bool train) -> Tensor",
        "aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
        "my_ops::warp_perspective(Tensor image, Tensor warp, int height, int width) -> Tensor",
        "good_ops::sin_into(Tensor x, *, Tensor(a!) out) -> ()",
        "good_ops::min_max(Tensor x) -> (Tensor, Tensor)",
        "ns::defaults(Tensor x, float eps=1e-05, float s=1.5, bool flag=True, str mode=\"mean\", int[2] k=[1, 2]) -> Tensor"
      })
  void rendersBackToTheSameSchemaString(String schema) {
    OpSchema model = SchemaReader.parse(schema);
    assertEquals(schema, model.toString());
    assertEquals(model, SchemaReader.parse(model.toString()));
  }

  @Test
  void readsArgumentsTypesAliasesAndDefaults() {
    OpSchema s =
        SchemaReader.parse("aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
    assertEquals("aten::add_", s.name());
    assertEquals("Tensor", s.overload());
    assertEquals("add_", s.baseName());
    OpSchema.Argument self = s.arguments().get(0);
    assertEquals("self", self.name());
    assertEquals("TensorType", self.type().kind());
    assertEquals(Optional.of(new OpSchema.Alias(List.of("a"), List.of("a"), true)), self.alias());
    assertTrue(self.isWrite());
    OpSchema.Argument alpha = s.arguments().get(2);
    assertTrue(alpha.kwargOnly());
    assertEquals(Optional.of("1"), alpha.defaultValue());
    assertEquals("NumberType", alpha.type().kind());
    assertEquals(List.of(self), s.mutableArguments());
    assertTrue(s.returns().get(0).alias().get().write());
  }

  @Test
  void readsOptionalAndListTypes() {
    OpSchema s = SchemaReader.parse("ns::f(Tensor? a, int[2] k, Tensor?[] ts, Dict(str, Tensor) d) -> Tensor[]");
    OpSchema.Type opt = s.arguments().get(0).type();
    assertTrue(opt.isOptional());
    assertEquals("TensorType", opt.unwrapOptional().kind());
    assertEquals(Optional.of(2), s.arguments().get(1).size());
    assertTrue(s.arguments().get(1).type().isList());
    assertTrue(s.arguments().get(2).type().holdsTensor());
    assertEquals("DictType", s.arguments().get(3).type().kind());
    assertEquals(2, s.arguments().get(3).type().contained().size());
    assertTrue(s.returns().get(0).type().isList());
    assertFalse(s.arguments().get(1).type().holdsTensor());
  }

  @Test
  void registeredOpsRenderAsTheDispatcherPrintsThem() throws Exception {
    OpLibrary lib = OpLibrary.load(NativeOps.lib("bad_ops"));
    for (String name : lib.ops()) {
      Operator op = lib.op(name);
      String dumped =
          op.handle().dumpState().getString().lines()
              .filter(l -> l.startsWith("schema: "))
              .findFirst()
              .orElseThrow()
              .substring("schema: ".length());
      assertEquals(dumped, op.schema().toString(), name);
    }
  }
}
