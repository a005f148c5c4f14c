package dev.opcheck4j.checks.torchscript;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.checks.BuiltinChecks;
import dev.opcheck4j.run.RunPlan;
import dev.opcheck4j.run.Runner;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.TorchRuntime;
import java.util.List;
import org.junit.jupiter.api.Test;

class TorchScriptChecksTests {
  static RunReport run(String spec, List<String> ops) throws Exception {
    SpecFile file = SpecReader.read(NativeOps.spec(spec));
    RunPlan.Target target = new RunPlan.Target(OpLibrary.load(file.library()), file.selectOps(ops), "--spec " + spec);
    return new Runner(TorchRuntime.get()).run(
        new RunPlan(List.of(target), List.of(Device.CPU), BuiltinChecks.select(List.of("torchscript")), 7L, 0), r -> {});
  }

  @Test
  void warpPerspectivePassesBothOnCpuAndTheSavedCodeNamesTheOp() throws Exception {
    RunReport r = run("my_ops.json", List.of("my_ops::warp_perspective"));
    List<CheckResult> results = r.results();
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
    CheckResult r = run("bad/bad_ops.json", List.of("bad_ops::twin.copy")).results().get(0);
    assertEquals("torchscript.call", r.check());
    assertEquals(Outcome.FAILED, r.outcome());
    assertEquals("TorchScript bound it to bad_ops::twin(Tensor x) -> Tensor", r.fact("but was").orElseThrow());
  }

  @Test
  void anOverloadTheImporterRebindsFailsTheRoundtripOnly() throws Exception {
    List<CheckResult> rs = run("bad/bad_ops.json", List.of("bad_ops::shadowed.one")).results();
    assertEquals(Outcome.PASSED, rs.get(0).outcome(), rs.toString());
    CheckResult r = rs.get(1);
    assertEquals("torchscript.roundtrip", r.check());
    assertEquals(Outcome.FAILED, r.outcome());
    assertEquals("return ops.bad_ops.shadowed(x)", r.fact("saved code").orElseThrow());
    assertFalse(r.fact("but was").orElseThrow().isEmpty());
  }
}
