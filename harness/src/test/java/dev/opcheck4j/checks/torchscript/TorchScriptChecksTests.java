package dev.opcheck4j.checks.torchscript;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.junit.OpCheck;
import dev.opcheck4j.testing.NativeOps;
import java.util.List;
import org.junit.jupiter.api.Test;

class TorchScriptChecksTests {
  static List<CheckResult> run(String spec, String op) throws Exception {
    return OpCheck.fromSpec(NativeOps.spec(spec)).ops(op).checks("torchscript").devices("cpu").tries(0).run()
        .report().results();
  }

  @Test
  void warpPerspectivePassesBothOnCpuAndTheSavedCodeNamesTheOp() throws Exception {
    List<CheckResult> results = run("my_ops.json", "my_ops::warp_perspective");
    assertEquals(4, results.size(), results.toString());
    for (CheckResult x : results) {
      assertEquals(Outcome.PASSED, x.outcome(), x.toString());
    }
    CheckResult roundtrip = results.stream().filter(x -> x.check().equals("torchscript.roundtrip")).findFirst().orElseThrow();
    assertEquals("_0 = ops.my_ops.warp_perspective(image, warp, height, width)",
        roundtrip.fact("saved code").orElseThrow());
    CheckResult call = results.get(0);
    assertEquals("my_ops::warp_perspective(Tensor image, Tensor warp, int height, int width) -> Tensor",
        call.fact("bound").orElseThrow());
  }

  @Test
  void anOverloadTorchScriptCannotReachFailsTheCallWithBothSchemas() throws Exception {
    CheckResult r = run("bad/bad_ops.json", "bad_ops::twin.copy").get(0);
    assertEquals("torchscript.call", r.check());
    assertEquals(Outcome.FAILED, r.outcome());
    assertEquals("TorchScript bound it to bad_ops::twin(Tensor x) -> Tensor", r.fact("but was").orElseThrow());
  }

  @Test
  void anOverloadTheImporterRebindsFailsTheRoundtripOnly() throws Exception {
    List<CheckResult> rs = run("bad/bad_ops.json", "bad_ops::shadowed.one");
    assertEquals(Outcome.PASSED, rs.get(0).outcome(), rs.toString());
    CheckResult r = rs.get(1);
    assertEquals("torchscript.roundtrip", r.check());
    assertEquals(Outcome.FAILED, r.outcome());
    assertEquals("return ops.bad_ops.shadowed(x)", r.fact("saved code").orElseThrow());
    assertFalse(r.fact("but was").orElseThrow().isEmpty());
  }
}
