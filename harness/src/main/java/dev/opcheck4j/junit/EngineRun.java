package dev.opcheck4j.junit;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.run.RunPlan;
import dev.opcheck4j.run.Runner;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.torch.LibraryLoadException;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.TorchRuntime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The one place where the engine hands its specs to the run machinery and gets results back as
 * they are produced. Everything else in the engine is plain Java over {@link CheckResult}s.
 */
final class EngineRun {
  /**
   * One spec to run.
   *
   * @param spec the spec's index in the engine's tree
   * @param file the spec
   * @param settings the run's settings narrowed to what the tree still has after filtering
   */
  record Job(int spec, SpecFile file, EngineSettings settings) {}

  /** Receives what the run produces, per spec, in order. */
  interface Sink {
    void result(int spec, CheckResult result);

    /** A problem with the input: library missing or not loadable, unknown op, invalid example. */
    void inputError(int spec, String message);

    /** Everything of this spec has been produced. */
    void specDone(int spec);
  }

  private EngineRun() {}

  static RunReport run(List<Job> jobs, Sink sink) {
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    List<CheckResult> all = new ArrayList<>();
    TorchRuntime runtime = TorchRuntime.get();
    for (Job job : jobs) {
      EngineSettings s = job.settings();
      try {
        OpLibrary lib = OpLibrary.load(job.file().library());
        RunPlan.Target target = new RunPlan.Target(lib, EngineTree.ops(job.file(), s), "--spec " + job.file().file());
        Runner runner = new Runner(runtime);
        runner.run(new RunPlan(List.of(target), s.selectedDevices(), s.selectedChecks(), s.seed(), s.tries()), r -> {
          all.add(r);
          sink.result(job.spec(), r);
        });
        runner.inputErrors().forEach(e -> sink.inputError(job.spec(), e));
      } catch (LibraryLoadException e) {
        sink.inputError(job.spec(), e.getMessage());
      }
      sink.specDone(job.spec());
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    return new RunReport(runtime.torchVersion(), runtime.presetsVersion(), started, ms, all);
  }
}
