package dev.opcheck4j.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.JitModule;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScriptModulesTests {
  /** The model saved by opcheck4j's own code, beside the one PyTorch saved. */
  static final Path SAVED_BY_US = NativeOps.repoRoot().resolve("fixtures/models/opcheck4j_warp.pt");

  static Operator warp() throws Exception {
    return OpLibrary.load(NativeOps.lib("my_ops")).op("my_ops::warp_perspective");
  }

  @Test
  void aModuleCallingTheOpNamesItAsSerializationDoesAndLoadsBack(@TempDir Path dir) throws Exception {
    ScriptModules.OpModule m = ScriptModules.callingOp(warp(), Set.of(0, 1, 2, 3));
    assertEquals("my_ops::warp_perspective(Tensor image, Tensor warp, int height, int width) -> Tensor", m.bound());
    Path file = dir.resolve("m.pt");
    ScriptModules.save(m.module(), file);
    assertTrue(ScriptModules.code(file).contains("ops.my_ops.warp_perspective(image, warp, height, width)"),
        ScriptModules.code(file));
    JitModule back = ScriptModules.load(file);
    List<IValue> in = List.of(new IValue(torch.rand(16, 16)), new IValue(torch.eye(3)), new IValue(8L), new IValue(8L));
    Tensor a = ScriptModules.forward(m.module(), in).toTensor();
    Tensor b = ScriptModules.forward(back, in).toTensor();
    assertTrue(torch.equal(a, b));
    assertEquals(List.of(new ScriptModels.CalledOp("my_ops::warp_perspective",
        java.util.Optional.of(m.bound()), "OpCall.forward")), ScriptModels.calledInGraphs(back));
  }

  @Test
  void argumentsEqualToTheirDefaultsAreLeftOutOfTheSavedCode(@TempDir Path dir) throws Exception {
    // the importer fills them from the schema registered at load time: a default a later release
    // changes silently changes every saved model (schema.compatible fails on a changed default)
    Operator shadowed = OpLibrary.load(NativeOps.lib("bad_ops")).op("bad_ops::shadowed");
    Path file = dir.resolve("d.pt");
    ScriptModules.save(ScriptModules.callingOp(shadowed, Set.of(0)).module(), file);
    assertTrue(ScriptModules.code(file).contains("return ops.bad_ops.shadowed(x)\n"), ScriptModules.code(file));
  }

  /** The committed fixture is what this code saves today (regenerate with -Dopcheck4j.regenerate=true). */
  @Test
  void theFixtureSavedByOpcheck4jIsUpToDate(@TempDir Path dir) throws Exception {
    Path fresh = Boolean.getBoolean("opcheck4j.regenerate") ? SAVED_BY_US : dir.resolve("fresh.pt");
    ScriptModules.save(ScriptModules.callingOp(warp(), Set.of(0, 1, 2, 3)).module(), fresh);
    assertEquals(ScriptModules.code(fresh), ScriptModules.code(SAVED_BY_US));
  }

  @Test
  void aLoadErrorNamesTheUnknownOp() {
    ScriptModels.LoadFailure f = ScriptModels.classify(
        "\nUnknown builtin op: my_ops::warp_perspective.\nCould not find any similar ops\n:\n  File \"code/__torch__.py\"");
    assertEquals(ScriptModels.LoadFailure.Kind.UNKNOWN_OP, f.kind());
    assertEquals("my_ops::warp_perspective", f.op());
  }

  @Test
  void aCallThatNoLongerFitsTheSchemaIsASchemaMismatchNamingOpAndArgument() {
    ScriptModels.LoadFailure f = ScriptModels.classify("\n\ncompat::retyped(Tensor x, float n) -> Tensor:\n"
        + "Expected a value of type 'float' for argument 'n' but instead found type 'int'.\n:\n"
        + "  File \"code/__torch__.py\", line 7\n    return ops.compat.retyped(x, n)\n           ~~~~ <--- HERE\n");
    assertEquals(ScriptModels.LoadFailure.Kind.SCHEMA_MISMATCH, f.kind());
    assertEquals("compat::retyped", f.op());
    assertEquals("Expected a value of type 'float' for argument 'n' but instead found type 'int'.", f.getMessage());
  }

  @Test
  void theModelPyTorchSavedCallsWarpPerspective() throws Exception {
    Path model = NativeOps.repoRoot().resolve("fixtures/models/warp_model.pt");
    assertEquals(List.of(new ScriptModels.CalledOp("my_ops::warp_perspective", java.util.Optional.empty(),
        "x0 = ops.my_ops.warp_perspective(x, torch.eye(3), 8, 8)")), ScriptModels.calledInCode(model));
    assertTrue(Files.size(model) < 10_000);
  }
}
