package dev.opcheck4j.testing;

import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.torch.Device;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The session of one op {@code t::f} of a spec {@code t.json} with one {@code example}, on {@code kernels}: no worker. */
public final class OneOpSessions {
  private OneOpSessions() {}

  public static OpSession of(Kernels kernels, Example example) {
    OpSpec spec = new OpSpec("t::f", List.of(), Map.of(), Optional.empty(), List.of(example), "t.json#ops[0]",
        OpSpec.Gradcheck.DEFAULT, Vary.NONE);
    LibraryInfo lib = new LibraryInfo(Path.of("/x/libt.so"), List.of(), List.of("t"), List.of());
    RunPlan.Target target = new RunPlan.Target(lib, List.of(spec), "--spec t.json", 0, SeverityPolicy.DEFAULT);
    RunPlan plan = new RunPlan(List.of(target), List.of(Device.CPU), BuiltinChecks.all(), 3L, 10, SeverityPolicy.DEFAULT,
        Duration.ofSeconds(5));
    return new OpSession(plan, target, spec, kernels, SeverityPolicy.DEFAULT);
  }
}
