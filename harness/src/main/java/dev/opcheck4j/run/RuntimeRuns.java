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
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.ValueBaseline;
import java.util.Optional;
import dev.opcheck4j.checks.builtin.CheckCatalog;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.plan.Interruption;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.LibtorchRuntime;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.plan.RunTarget;
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

/**
 * A run on the runtimes a request names ({@code check --runtime 2.10.0,2.13.0}): the request's plan run once
 * per runtime, oldest first, each on workers of that runtime, with the same seed (so every generated input is
 * the same on each), told to the listener as one run. In a run of several runtimes each result carries its
 * runtime ({@link CheckResult#runtime}), and each runtime's worker files go to {@code runtime-<version>/} in the
 * report dir.
 *
 * <p>A library that does not load on one runtime (built for a newer stable ABI, or classic code bound to
 * another libtorch's C++ ABI) is refused there alone: the other libraries run on it, and once every runtime
 * ran, each result its ops had on a runtime that loaded it is repeated as Skipped on the one that refused it,
 * with the one line why. A library no runtime loads is the run's load error, as in a run on one runtime.
 */
final class RuntimeRuns {
  private RuntimeRuns() {}

  /**
   * Runs {@code request} on each of its runtimes.
   *
   * @throws LibraryLoadException when a library loads on none of them
   */
  static RunOutcome execute(RunRequest request, RunListener listener, Interruption stop)
      throws LibraryLoadException, SpecException {
    List<String> runtimes = request.runtimes();
    boolean several = runtimes.size() > 1;
    RuntimeJoin joined = new RuntimeJoin(listener, runtimes.stream().map(Runtimes::find).toList(), several && RuntimeAgreement.requested(request));
    List<RunOutcome> outcomes = new ArrayList<>();
    List<String> ranOn = new ArrayList<>();
    List<RuntimeCost> costs = new ArrayList<>();
    List<RuntimeRefusal> refusals = new ArrayList<>();
    LibraryLoadException firstRefusal = null;
    for (String version : runtimes) {
      if (stop.requested()) {
        break;
      }
      LibtorchRuntime runtime = Runtimes.find(version);
      RunRequest sub = onRuntime(request, version, several);
      long t0 = System.nanoTime();
      boolean ran = false;
      while (true) {
        try {
          RunOutcome outcome = Launcher.executeOne(sub, joined.on(runtime, several), stop);
          if (outcome != null) {
            if (several) {
              labelScripts(outcome, runtime);
            }
            outcomes.add(several ? tagged(outcome, version) : outcome);
            ranOn.add(version);
            costs.add(new RuntimeCost(runtime.torch(), runtime.presets(), (System.nanoTime() - t0) / 1_000_000,
                outcome.report().results().size()));
            ran = true;
          }
          break;
        } catch (LibraryLoadException e) {
          if (!several) {
            throw e;
          }
          firstRefusal = firstRefusal == null ? e : firstRefusal;
          refusals.add(new RuntimeRefusal(version, e.path(), reason(e)));
          sub = without(sub, e.path());
          if (sub == null) {
            break; // no library of the run loads on this runtime
          }
        }
      }
      if (!ran) {
        costs.add(new RuntimeCost(runtime.torch(), runtime.presets(), (System.nanoTime() - t0) / 1_000_000, 0));
      }
    }
    Set<Path> loaded = new LinkedHashSet<>();
    outcomes.forEach(o -> o.libraries().forEach(l -> loaded.add(same(l.path()))));
    for (RuntimeRefusal r : refusals) {
      if (!loaded.contains(same(r.library()))) {
        throw firstRefusal; // refused everywhere: the run's load error, as on one runtime
      }
    }
    List<CheckResult> results = new ArrayList<>();
    outcomes.forEach(o -> results.addAll(o.report().results()));
    for (RuntimeRefusal r : refusals) {
      results.addAll(joined.skipped(r, outcomes));
    }
    if (several && ranOn.size() > 1 && !stop.requested() && RuntimeAgreement.requested(request)) {
      long t0 = System.nanoTime();
      // a shard's run compares the ops of its shard alone: merged, the shards give each op's comparison once
      Set<String> ops = new LinkedHashSet<>();
      outcomes.forEach(o -> ops.addAll(o.ops()));
      List<CheckResult> agreed = RuntimeAgreement.of(request, ranOn, refusals, ops, joined);
      results.addAll(agreed);
      costs.add(new RuntimeCost(RuntimeAgreeCheck.ID, "outputs recorded on each runtime", (System.nanoTime() - t0) / 1_000_000,
          agreed.size()));
    }
    return joined.finish(outcomes, results, costs, ranOn, refusals);
  }

  /**
   * The runtimes the spec files claim, known ones, oldest first.
   *
   * @throws SpecException naming a runtime this build has not
   */
  static List<String> claimed(List<String> versions, List<Path> specs) throws SpecException {
    try {
      return Runtimes.parse(String.join(",", versions));
    } catch (IllegalArgumentException e) {
      String file = specs.stream().filter(java.util.Objects::nonNull).map(Path::toString).findFirst().orElse("spec");
      throw new SpecException(file, "\"runtimes\": " + e.getMessage() + " (built: " + Runtimes.listed()
          + "; docs/runtimes.md)");
    }
  }

  /**
   * Says in each repro script of {@code outcome} which torch it was found on, below its first line: the scripts of
   * a run on several runtimes are written per runtime ({@code DIR/runtime-<version>/}), and one found on 2.10 may
   * not reproduce on another torch.
   */
  private static void labelScripts(RunOutcome outcome, LibtorchRuntime runtime) {
    for (CheckResult r : outcome.report().results()) {
      if (r.repro() == null || r.repro().script() == null) {
        continue;
      }
      Path script = Path.of(r.repro().script());
      try {
        String text = java.nio.file.Files.readString(script);
        String line = "# Found on libtorch " + runtime.torch() + " (JavaCPP presets " + runtime.presets()
            + "): run it with torch " + runtime.torch() + " (pip install torch==" + runtime.torch() + ")\n";
        int first = text.indexOf('\n') + 1;
        if (!text.contains(line)) {
          java.nio.file.Files.writeString(script, text.substring(0, first) + line + text.substring(first));
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot label the repro script " + script, e);
      }
    }
  }

  /** The one line a skipped result of a refused library says: the load error without the library's path before it. */
  static String reason(LibraryLoadException e) {
    String m = e.getMessage() == null ? "" : e.getMessage();
    String path = e.path().toString();
    for (String prefix : List.of(path + ": ", path + " ")) {
      if (m.startsWith(prefix)) {
        return m.substring(prefix.length());
      }
    }
    return m;
  }

  static Path same(Path p) {
    return p.toAbsolutePath().normalize();
  }

  /** {@code request} on {@code version} alone, its worker files in a dir of their own when the run has several. */
  private static RunRequest onRuntime(RunRequest request, String version, boolean several) {
    RunRequest.Builder b = request.toBuilder().runtimes(List.of(version));
    if (several && request.reportDir() != null) {
      b.reportDir(request.reportDir().resolve("runtime-" + version));
    }
    if (several && request.repro() != null) {
      b.repro(request.repro().resolve("runtime-" + version));
    }
    return b.build();
  }

  /** {@code request} without the target whose library is {@code library}; null when none would be left. */
  private static RunRequest without(RunRequest request, Path library) throws SpecException {
    List<Path> libraries = RunSetup.of(request).libraries();
    RunRequest.Builder b = request.toBuilder();
    List<RunTarget> kept = new ArrayList<>();
    for (int i = 0; i < request.targets().size(); i++) {
      if (!same(libraries.get(i)).equals(same(library))) {
        kept.add(request.targets().get(i));
      }
    }
    if (kept.isEmpty() || kept.size() == request.targets().size()) {
      return null;
    }
    b.targets(kept);
    return b.build();
  }

  private static RunOutcome tagged(RunOutcome o, String version) {
    List<CheckResult> results = o.report().results().stream().map(r -> r.onRuntime(version)).toList();
    return new RunOutcome(new RunReport(o.report().run(), CheckCatalog.builtin(), results), o.inputErrors(), o.ops(),
        o.libraries());
  }
}
