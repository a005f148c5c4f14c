package dev.opcheck4j.checks.schema;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.SchemaText;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The schema checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class SchemaChecksTests {
  @Test
  void legalTypesPass() throws Exception {
    assertPasses("schema.types", "good_ops", "good_ops.json", "good_ops::add_scalar");
  }

  @Test
  void aDictArgumentBreaksTheContract() throws Exception {
    assertFinds("schema.types", "bad_ops", "bad/bad_ops.json", "bad_ops::dict_arg", Cause.Contract.class);
  }

  @Test
  void anInplaceNameWithoutAMutableArgumentBreaksTheContract() throws Exception {
    assertFinds("schema.inplace-name", "bad_ops", "bad/bad_ops.json", "bad_ops::scale_", Cause.Contract.class);
  }

  @Test
  void anOutVariantReturningNothingPasses() throws Exception {
    assertPasses("schema.out-variant", "ordinary_ops", "ordinary_ops.json", "ordinary::square_out");
  }

  @Test
  void anOutVariantReturningANewTensorBreaksTheConvention() throws Exception {
    assertFinds("schema.out-variant", "bad_ops", "bad/bad_ops.json", "bad_ops::out_returns_new", Cause.Contract.class);
  }

  @Test
  void optionalScalarReturnsAreLegalAsOpcheckHasItButNotAStrOrAnOptionalList() {
    // real opcheck 2.14.1 passes _torchaudio::cuda_version() -> int? (test_schema, test_faketensor, test_aot_dispatch_dynamic)
    for (String legal : List.of("t::a() -> int?", "t::b(Tensor x) -> Tensor?", "t::c(Tensor x) -> (Tensor, float?)")) {
      OpSchema schema = SchemaText.parse(legal);
      schema.returns().forEach(r -> assertTrue(TypesCheck.legalReturn(r.type()), legal));
    }
    for (String illegal : List.of("t::d() -> str", "t::e() -> int[]?", "t::f() -> str?")) {
      OpSchema schema = SchemaText.parse(illegal);
      assertFalse(TypesCheck.legalReturn(schema.returns().get(0).type()), illegal);
    }
  }
}
