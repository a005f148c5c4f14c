package dev.opcheck4j.checks;

import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.builtin.Evaluator;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.Operator;
import dev.opcheck4j.torch.Operators;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.bytedeco.pytorch.Dispatcher;
import org.bytedeco.pytorch.RegistrationHandleRAII;
import org.bytedeco.pytorch.TagVector;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tags a registration really carries, read through the path the worker reads them by
 * ({@code Operator.tags()}, then {@link OpTags}): PyTorch's own aten ops, and a schema this JVM registers
 * with tags as a classic library's {@code m.def(schema, tags)} does; and the checks a tag changes, run
 * in this process on aten ops whose tags are registered, not declared.
 */
class OpTagsTests {
  @TempDir Path dir;

  @Test
  void atenOpsCarryTheirRegisteredTags() throws Exception {
    assertTrue(Operators.find("aten::add.Tensor").tags().containsAll(List.of("pointwise", "pt2_compliant_tag")));
    assertTrue(Operators.find("aten::bernoulli").tags().contains(OpTags.NONDETERMINISTIC_SEEDED));
    assertTrue(Operators.find("aten::nonzero").tags().contains(OpTags.DYNAMIC_OUTPUT_SHAPE));
    assertTrue(Operators.find("aten::unsqueeze_").tags().contains(OpTags.INPLACE_VIEW));
    assertTrue(Operators.find("aten::t_").tags().contains(OpTags.INPLACE_VIEW));
    OpTags tags = OpTags.of(Operators.find("aten::add.Tensor").tags(), OpSpec.bare("aten::add.Tensor"));
    assertEquals("pt2_compliant_tag (registered)", tags.describe(OpTags.PT2_COMPLIANT));
  }

  @Test
  void aSchemaRegisteredWithTagsReadsBackWithThem() throws Exception {
    RegistrationHandleRAII handle = Dispatcher.singleton().registerDef(
        torch.parseSchema("opcheck4j_tags_test::draw(Tensor x) -> Tensor"), "OpTagsTests",
        new TagVector(torch.Tag.nondeterministic_seeded, torch.Tag.pt2_compliant_tag));
    try {
      assertEquals(List.of("nondeterministic_seeded", "pt2_compliant_tag"),
          Operators.find("opcheck4j_tags_test::draw").tags());
    } finally {
      handle.close();
    }
  }

  @Test
  void theTagsASpecMayDeclareAreLibtorchsOwn() {
    assertEquals(Arrays.stream(torch.Tag.values()).map(Enum::name).sorted().toList(), SpecReader.TAGS);
  }

  @Test
  void eachTagSaysWhereItCameFrom() {
    OpTags tags = new OpTags(List.of("pt2_compliant_tag"), List.of("inplace_view", "pt2_compliant_tag"), "t.json#ops[0]");
    assertEquals("registered, and declared in t.json#ops[0]", tags.source("pt2_compliant_tag"));
    assertEquals("declared in t.json#ops[0]", tags.source("inplace_view"));
    assertEquals(List.of("inplace_view", "pt2_compliant_tag"), tags.names());
    assertEquals("", tags.source("pointwise"));
  }

  @Test
  void registeredTagsChangeTheChecksAsDeclaredOnesDo() throws Exception {
    OpLibrary lib = OpLibrary.load(NativeOps.lib("tags_ops"));
    // aten::bernoulli draws from torch's generator and is registered nondeterministic_seeded
    Verdict seeded = evaluate("determinism", lib, "aten::bernoulli", "{\"tensor\": [4, 3], \"init\": \"rand\"}");
    assertEquals(Outcome.PASSED, seeded.outcome(), seeded.facts().toString());
    assertTrue(seeded.facts().toString().contains("the op is tagged nondeterministic_seeded (registered)"),
        seeded.facts().toString());
    // aten::t_ is registered inplace_view and returns its argument
    Verdict view = evaluate("tags.inplace-view", lib, "aten::t_", "{\"tensor\": [4, 3]}");
    assertEquals(Outcome.PASSED, view.outcome(), view.facts().toString());
    // aten::nonzero is registered dynamic_output_shape: the fake comparison does not apply
    Operator nonzero = Operators.find("aten::nonzero");
    String reason = BuiltinChecks.byId("fake.metadata").orElseThrow()
        .notFor(nonzero.schema(), OpTags.of(nonzero.tags(), OpSpec.bare("aten::nonzero"))).orElseThrow();
    assertTrue(reason.startsWith("does not apply: the op is tagged dynamic_output_shape (registered)"), reason);
    // aten::_local_scalar_dense (what .item() calls) is registered data_dependent_output
    Operator item = Operators.find("aten::_local_scalar_dense");
    String why = BuiltinChecks.byId("fake.metadata").orElseThrow()
        .notFor(item.schema(), OpTags.of(item.tags(), OpSpec.bare("aten::_local_scalar_dense"))).orElseThrow();
    assertTrue(why.startsWith("does not apply: the op is tagged data_dependent_output (registered): its output depends"
        + " on the input's values"), why);
  }

  /** {@code check}'s verdict, on the cpu, on {@code op} called with one tensor argument {@code arg}. */
  private Verdict evaluate(String check, OpLibrary lib, String op, String arg) throws Exception {
    Path spec = dir.resolve("aten.json");
    Files.writeString(spec, "{\"library\": \"" + NativeOps.lib("tags_ops") + "\", \"ops\": [{\"op\": \"" + op
        + "\", \"examples\": [{\"args\": [" + arg + "]}]}]}");
    OpSpec entry = SpecReader.read(spec).ops().get(0);
    Subject s = new Subject(lib, Operators.find(op), entry, Device.CPU, entry.examples().get(0), 7L);
    return Evaluator.evaluate(BuiltinChecks.byId(check).orElseThrow(), s);
  }
}
