package dev.opcheck4j.junit;

import dev.opcheck4j.run.plan.Shard;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.reporting.ReportDirLock;
import dev.opcheck4j.run.ResultsFile;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.plan.ExpectedFailures;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.LibraryLoadException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one place where the engine hands its specs to the run machinery ({@link Launcher}: kernels run
 * in supervised worker JVMs, never in the test JVM) and hears what happens as it happens.
 * Everything else in the engine is plain Java over {@link CheckResult}s.
 */
final class EngineRun {
  /**
   * One spec to run.
   *
   * @param spec the spec's index in the engine's tree
   * @param read the spec, as discovery read it
   * @param settings the run's settings narrowed to what the tree still has after filtering
   */
  record Job(int spec, SpecReader.Parsed read, EngineSettings settings) {
    /** The spec, as discovery read it. */
    SpecFile file() {
      return read.file();
    }
  }

  /** Receives what the run produces, per spec, in order. */
  interface Sink {
    /** The listener of the run of {@code spec}. */
    RunListener listener(int spec);

    /** A problem with the input: library missing or not loadable, unknown op, invalid example. */
    void inputError(int spec, String message);

    /** Libtorch {@code runtime} refused the library of {@code spec}, in a run on several runtimes: {@code reason} is why. */
    void refused(int spec, String runtime, String reason);

    /** Everything of this spec has been produced. */
    void specDone(int spec);
  }

  private EngineRun() {}

  /**
   * Runs the specs one after the other (each on its own workers); null when none could run. The
   * report's run block names every spec and carries the engine's {@code configuration}.
   */
  static RunReport run(List<Job> jobs, Map<String, String> configuration, Sink sink) {
    long t0 = System.nanoTime();
    List<CheckResult> all = new ArrayList<>();
    RunInfo run = null;
    List<CheckInfo> checks = List.of();
    for (Job job : jobs) {
      EngineSettings s = job.settings();
      RunRequest request = s.run().toBuilder()
          // the spec as discovery read it: the run reads it no more
          .spec(job.read())
          .select(EngineTree.ops(job.file(), s).stream().map(o -> o.op()).toList(),
              s.selectedChecks().stream().map(c -> c.id()).toList(), s.selectedDevices())
          // the engine took its shard's ops at discovery (EngineSettings.sharded): each spec runs them all
          .shard(Shard.ALL)
          .reportDir(s.run().reportDir().resolve("runs").resolve(job.file().file().getFileName().toString()))
          // each spec runs on its own: it judges the entries about its namespaces (discovery checked the rest)
          .expectedFailures(s.run().expectedFailures().within(job.file().ops().stream()
              .map(o -> ExpectedFailures.namespace(o.op())).collect(java.util.stream.Collectors.toSet())))
          .build();
      try (ReportDirLock lock = ReportDirLock.acquire(request.reportDir(),
          "the JUnit engine in pid " + ProcessHandle.current().pid() + ", " + job.file().file())) {
        RunOutcome outcome = Launcher.execute(request, sink.listener(job.spec()));
        all.addAll(outcome.report().results());
        RunInfo specRun = outcome.report().run();
        run = run == null ? specRun : run.followedBy(specRun);
        checks = outcome.report().checks();
        outcome.inputErrors().forEach(e -> sink.inputError(job.spec(), e));
        outcome.refusals().forEach(r -> sink.refused(job.spec(), r.runtime(), r.reason()));
      } catch (LibraryLoadException | SpecException | IllegalArgumentException | ReportDirLock.Refused
          | ResultsFile.NoSpace e) {
        sink.inputError(job.spec(), e.getMessage());
      }
      sink.specDone(job.spec());
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    return run == null ? null
        : new RunReport(run.withDuration(ms).withInvocation(null, configuration), checks, all);
  }
}
