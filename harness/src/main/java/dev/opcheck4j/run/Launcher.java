package dev.opcheck4j.run;

import dev.opcheck4j.api.ResultListener;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.checks.BuiltinChecks;
import dev.opcheck4j.checks.CheckCatalog;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.LibraryLoadException;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.TorchRuntime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The one entry point of a run, used by the command line, the JUnit API and the JUnit Platform
 * engine: {@code Launcher.execute(request, listener)} checks what the request names and returns the
 * report, passing each result to {@code listener} as soon as it is final.
 */
public final class Launcher {
  private Launcher() {}

  /**
   * Runs {@code request}.
   *
   * @throws LibraryLoadException when a library cannot be loaded (one line naming it)
   * @throws SpecException when a spec file is invalid
   * @throws IllegalArgumentException naming an unknown check or family
   */
  public static RunOutcome execute(RunRequest request, ResultListener listener)
      throws LibraryLoadException, SpecException {
    List<Check> checks = request.checks().isEmpty() ? BuiltinChecks.all() : BuiltinChecks.select(request.checks());
    TorchRuntime runtime = TorchRuntime.get();
    List<RunPlan.Target> targets = new ArrayList<>();
    for (RunRequest.Target t : request.targets()) {
      if (t.spec() != null) {
        SpecFile file = SpecReader.read(t.spec());
        OpLibrary lib = OpLibrary.load(t.library() != null ? t.library() : file.library());
        targets.add(new RunPlan.Target(lib, file.selectOps(request.ops()), t.source(), file.warningsAsErrors()));
      } else {
        RunPlan.Target all = RunPlan.Target.allOps(OpLibrary.load(t.library()));
        targets.add(new RunPlan.Target(all.library(), SpecFile.select(all.ops(), request.ops()), all.source()));
      }
    }
    List<Device> devices = request.devices().isEmpty() ? runtime.devicesUnderTest() : request.devices();
    Runner runner = new Runner(runtime);
    RunInfo run = RunBlock.of(request, targets.stream().map(t -> t.library().path()).toList(), checks,
        RunBlock.devices(request.devices(), runtime.cudaAvailable()), Instant.now(), 0, null, null);
    listener.runStarted(run);
    RunReport ran = runner.run(new RunPlan(targets, devices, checks, request.seed(), request.tries(),
        request.warningsAsErrors()), listener);
    RunReport report = new RunReport(RunBlock.of(request, targets.stream().map(t -> t.library().path()).toList(),
        checks, run.devices(), ran.startedAt(), ran.durationMs(), null, null), CheckCatalog.builtin(), ran.results());
    List<String> ops = targets.stream().flatMap(t -> t.ops().stream()).map(OpSpec::op).toList();
    return new RunOutcome(report, runner.inputErrors(), ops, targets.stream().map(RunPlan.Target::library).toList());
  }
}
