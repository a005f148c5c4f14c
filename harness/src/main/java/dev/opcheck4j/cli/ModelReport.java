package dev.opcheck4j.cli;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.run.plan.RunBlock;
import dev.opcheck4j.run.plan.Versions;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.link.ModelInfo;
import dev.opcheck4j.run.link.WorkerInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * {@code ./opcheck model ... --expect OUT.pt --report-dir DIR}: the comparison as a run of one result,
 * {@code model.expect} on the model, written in every report format, so that a difference is drawn as
 * the HTML report draws every value mismatch (a heatmap of |difference|).
 */
final class ModelReport {
  static final String CHECK = "model.expect";
  private static final String SUMMARY = "forward's output equals the tensors saved by torch.save (--expect)";

  private ModelReport() {}

  static void write(Path dir, Path model, WorkerInfo info, List<String> inputs, long seed,
      Path expect, ModelInfo.Expectation e, String commandLine, PrintStream out) throws IOException, UsageException {
    String subject = "model " + model.getFileName();
    String example = String.join(", ", inputs);
    CheckResult result;
    List<Fact> facts = new ArrayList<>();
    facts.add(Fact.of("expected", "the tensors of " + expect + " (torch.save), within torch.testing's tolerance"));
    if (e.mismatch() == null) {
      result = new CheckResult(subject, CHECK, "cpu", example, Outcome.PASSED,
          List.of(Fact.of("tensors compared", e.compared()), Fact.of("rerun", commandLine)), 0);
    } else {
      facts.add(Fact.of("but was", e.mismatch().butWas()));
      facts.addAll(e.mismatch().details());
      facts.add(Fact.of("rerun", commandLine));
      Finding f = Finding.of("the tensors of " + expect + " (torch.save), within torch.testing's tolerance",
          e.mismatch().butWas(), "find what changed between the library that made the file and this one",
          new Cause.ValueMismatch("forward's output")).with(e.mismatch().details().toArray(Fact[]::new))
          .withHeatmaps(e.mismatch().heatmaps());
      result = new CheckResult(subject, CHECK, "cpu", example, Outcome.FAILED, facts, 0).withFinding(f, null);
    }
    List<RunInfo.Input> in = new ArrayList<>();
    for (LibraryInfo lib : info.libraries()) {
      in.add(new RunInfo.Input(null, lib.path().toString(), RunBlock.sha256(lib.path())));
    }
    RunInfo run = new RunInfo(Versions.current().tool(), info.torchVersion(), info.presetsVersion(), seed, 0, 1,
        List.of(new RunInfo.DeviceInfo("cpu", true, null)), List.of(CHECK), in, Instant.now(), 0, commandLine, null);
    RunReport report = new RunReport(run, List.of(CheckInfo.error(CHECK, CheckInfo.Scope.EXAMPLE, SUMMARY)), List.of(result));
    List<ReportFormat> formats = new ArrayList<>();
    ServiceLoader.load(ReportFormat.class).forEach(formats::add);
    RunSummary.writeReports(report, dir, out, formats);
  }
}
