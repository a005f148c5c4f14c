package dev.opcheck4j.run;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Repro;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.runtime.RuntimeAgreeCheck;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.torch.ValueBaseline;
import java.util.Optional;
import dev.opcheck4j.checks.builtin.CheckCatalog;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.plan.Interruption;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.LibtorchRuntime;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.plan.Runtimes;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.torch.LibraryLoadException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** runtime.agree on a run over several runtimes: what each runtime's workers gave for the same inputs, compared. */
final class RuntimeAgreement {
  private RuntimeAgreement() {}

  /** Whether the request's checks include runtime.agree. */
  static boolean requested(RunRequest request) {
    return (request.checks().isEmpty() ? BuiltinChecks.all() : BuiltinChecks.select(request.checks())).stream()
        .anyMatch(c -> c.id().equals(RuntimeAgreeCheck.ID));
  }

  /**
   * runtime.agree: each spec target's examples recorded on every runtime that loaded its library (the same
   * inputs: drawn from the run's seed), each runtime's outputs compared with the oldest one's; one result per
   * (op, example, newer runtime) of {@code ops} (those the runtimes checked: a shard's), told to the listener as
   * they come.
   */
  static List<CheckResult> of(RunRequest request, List<String> ranOn, List<RuntimeRefusal> refusals, Set<String> ops,
      RuntimeJoin joined)
      throws SpecException {
    RunSetup setup = RunSetup.of(request);
    Check check = BuiltinChecks.byId(RuntimeAgreeCheck.ID).orElseThrow();
    List<CheckResult> results = new ArrayList<>();
    for (int t = 0; t < setup.specs().size(); t++) {
      Path spec = setup.specs().get(t);
      Path library = setup.libraries().get(t);
      if (spec == null) {
        continue; // a library without a spec has no examples to record
      }
      SpecFile file = request.targets().get(t).read().file(); // read once, by Launcher.read
      Map<String, ValueBaseline> byRuntime = new LinkedHashMap<>();
      for (String version : ranOn) {
        boolean refused = refusals.stream().anyMatch(r -> r.runtime().equals(version) && RuntimeRuns.same(r.library()).equals(RuntimeRuns.same(library)));
        if (refused) {
          continue;
        }
        try {
          byRuntime.put(version, OneWorkerCommands.record(file, library, request.seed(),
              Runtimes.find(version).classPath()).values());
        } catch (LibraryLoadException e) {
          // refused on this runtime by the run itself already: nothing to compare there
        }
      }
      if (byRuntime.size() < 2) {
        continue;
      }
      List<String> versions = List.copyOf(byRuntime.keySet());
      String reference = versions.get(0);
      ValueBaseline then = byRuntime.get(reference);
      String current = null;
      for (ValueBaseline.Recorded a : then.examples()) {
        if (!ops.contains(a.op())) {
          continue;
        }
        if (!a.op().equals(current)) {
          if (current != null) {
            joined.opFinished(current, library);
          }
          current = a.op();
          joined.opStarted(current, library, spec);
        }
        Optional<OpSpec.Tolerance> tolerance = file.ops().stream()
            .filter(o -> o.examples().stream().anyMatch(e -> e.ref().equals(a.example())))
            .findFirst().flatMap(OpSpec::tolerance);
        for (String version : versions.subList(1, versions.size())) {
          Optional<ValueBaseline.Recorded> b = byRuntime.get(version).find(a.op(), a.example());
          Verdict v = b.isEmpty() ? Verdict.skipped("libtorch " + version + " recorded no outputs for this example")
              : RuntimeAgreeCheck.agree(reference, a, version, b.get(), tolerance);
          // rerun on both runtimes: the check compares them
          Repro repro = new Repro(request.targets().get(t).source(), a.op(), RuntimeAgreeCheck.ID, "cpu", request.seed(),
              request.tries(), a.example(), null, false, null, reference + "," + version);
          CheckResult r = v.result(a.op(), check, "cpu", a.example(), 0, request.severity(), repro).onRuntime(version);
          if (r.repro() != null) {
            r = r.withFinding(r.finding(), repro);
          }
          joined.result(r);
          results.add(r);
        }
      }
      if (current != null) {
        joined.opFinished(current, library);
      }
    }
    return results;
  }
}
