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
  /** A library a runtime refused to load: {@code reason} is the one line a skipped result of it says. */
  record Refusal(String runtime, Path library, String reason) {}

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
    Joined joined = new Joined(listener, runtimes.stream().map(Runtimes::find).toList(), several && agreeing(request));
    List<RunOutcome> outcomes = new ArrayList<>();
    List<String> ranOn = new ArrayList<>();
    List<RuntimeCost> costs = new ArrayList<>();
    List<Refusal> refusals = new ArrayList<>();
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
          refusals.add(new Refusal(version, e.path(), reason(e)));
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
    for (Refusal r : refusals) {
      if (!loaded.contains(same(r.library()))) {
        throw firstRefusal; // refused everywhere: the run's load error, as on one runtime
      }
    }
    List<CheckResult> results = new ArrayList<>();
    outcomes.forEach(o -> results.addAll(o.report().results()));
    for (Refusal r : refusals) {
      results.addAll(joined.skipped(r, outcomes));
    }
    if (several && ranOn.size() > 1 && !stop.requested() && agreeing(request)) {
      long t0 = System.nanoTime();
      List<CheckResult> agreed = agreement(request, ranOn, refusals, joined);
      results.addAll(agreed);
      costs.add(new RuntimeCost(RuntimeAgreeCheck.ID, "outputs recorded on each runtime", (System.nanoTime() - t0) / 1_000_000,
          agreed.size()));
    }
    return joined.finish(outcomes, results, costs, ranOn);
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

  /** Whether the request's checks include runtime.agree. */
  private static boolean agreeing(RunRequest request) {
    return (request.checks().isEmpty() ? BuiltinChecks.all() : BuiltinChecks.select(request.checks())).stream()
        .anyMatch(c -> c.id().equals(RuntimeAgreeCheck.ID));
  }

  /**
   * runtime.agree: each spec target's examples recorded on every runtime that loaded its library (the same
   * inputs: drawn from the run's seed), each runtime's outputs compared with the oldest one's; one result per
   * (op, example, newer runtime), told to the listener as they come.
   */
  private static List<CheckResult> agreement(RunRequest request, List<String> ranOn, List<Refusal> refusals, Joined joined)
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
      SpecFile file = SpecReader.read(spec, Preflight.checkNames());
      Map<String, ValueBaseline> byRuntime = new LinkedHashMap<>();
      for (String version : ranOn) {
        boolean refused = refusals.stream().anyMatch(r -> r.runtime().equals(version) && same(r.library()).equals(same(library)));
        if (refused) {
          continue;
        }
        try {
          byRuntime.put(version, OneWorkerCommands.record(spec, library, request.seed(),
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

  private static Path same(Path p) {
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
    List<RunRequest.Target> kept = new ArrayList<>();
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

  /** The listener of every runtime's run: one run to {@code to}, each result tagged with its runtime. */
  private static final class Joined {
    private final RunListener to;
    private final List<LibtorchRuntime> runtimes;
    private RunInfo first;
    private boolean started;
    private boolean planned;
    /** Whether runtime.agree runs once the runtimes ran: an op's examples recorded on each, told as one more op. */
    private final boolean agreeing;
    private final List<RunInfo> finished = new ArrayList<>();
    private final List<RunListener.RunEnd> ends = new ArrayList<>();

    Joined(RunListener to, List<LibtorchRuntime> runtimes, boolean agreeing) {
      this.to = to;
      this.runtimes = runtimes;
      this.agreeing = agreeing;
    }

    RunListener on(LibtorchRuntime runtime, boolean tag) {
      return new RunListener() {
        @Override
        public void runStarted(RunInfo run) {
          if (!started) {
            started = true;
            first = run;
            to.runStarted(relabelled(run));
          }
        }

        @Override
        public void planned(int ops) {
          if (!planned) {
            planned = true;
            to.planned(ops * runtimes.size() + (agreeing ? ops : 0));
          }
        }

        @Override
        public void opStarted(OpEvent op) {
          to.opStarted(op);
        }

        @Override
        public void unitStarted(UnitEvent unit) {
          to.unitStarted(unit);
        }

        @Override
        public void result(CheckResult result) {
          to.result(tag ? result.onRuntime(runtime.torch()) : result);
        }

        @Override
        public void opFinished(OpEvent op) {
          to.opFinished(op);
        }

        @Override
        public void runFinished(RunInfo run, RunEnd end) {
          finished.add(run);
          ends.add(end);
        }
      };
    }

    void opStarted(String op, Path library, Path spec) {
      to.opStarted(new RunListener.OpEvent(op, library.toString(), spec == null ? null : spec.toString(), Instant.now()));
    }

    void opFinished(String op, Path library) {
      to.opFinished(new RunListener.OpEvent(op, library.toString(), null, Instant.now()));
    }

    void result(CheckResult r) {
      to.result(r);
    }

    /** Each result of {@code r}'s library on the runtimes that loaded it, once, as Skipped on the one that refused it. */
    List<CheckResult> skipped(Refusal r, List<RunOutcome> outcomes) {
      Map<String, CheckResult> byKey = new LinkedHashMap<>();
      String file = r.library().getFileName().toString();
      for (RunOutcome o : outcomes) {
        Set<String> ops = new LinkedHashSet<>();
        o.libraries().stream().filter(l -> same(l.path()).equals(same(r.library())))
            .forEach(l -> ops.addAll(l.opNames()));
        for (CheckResult c : o.report().results()) {
          boolean ofLibrary = c.library() != null ? c.library().equals(file) : ops.contains(c.op())
              || ops.stream().anyMatch(n -> c.op().startsWith(n + "."));
          if (ofLibrary) {
            byKey.putIfAbsent(c.op() + "\u0000" + c.check() + "\u0000" + c.device() + "\u0000" + c.example(), c);
          }
        }
      }
      List<CheckResult> skips = new ArrayList<>();
      String current = null;
      Instant now = Instant.now();
      for (CheckResult c : byKey.values()) {
        if (!c.op().equals(current)) {
          if (current != null) {
            to.opFinished(new RunListener.OpEvent(current, r.library().toString(), null, now));
          }
          current = c.op();
          to.opStarted(new RunListener.OpEvent(current, r.library().toString(), null, now));
        }
        CheckResult skip = BuiltinChecks.byId(c.check())
            .map(check -> Verdict.skipped(r.reason()).result(c.op(), check, c.device(), c.example(), 0,
                SeverityPolicy.DEFAULT, null))
            .orElseThrow(() -> new IllegalStateException("a result of no built-in check: " + c.check()));
        skip = (c.library() != null ? skip.aboutLibrary(c.library()) : skip).withExample(c.exampleInfo())
            .onRuntime(r.runtime());
        to.result(skip);
        skips.add(skip);
      }
      if (current != null) {
        to.opFinished(new RunListener.OpEvent(current, r.library().toString(), null, now));
      }
      return skips;
    }

    /** Tells the listener the run finished, as one, and returns its outcome. */
    RunOutcome finish(List<RunOutcome> outcomes, List<CheckResult> results, List<RuntimeCost> costs, List<String> ranOn) {
      RunInfo last = finished.isEmpty() ? first : finished.get(finished.size() - 1);
      if (last == null) {
        last = outcomes.isEmpty() ? null : outcomes.get(0).report().run();
      }
      long ms = costs.stream().mapToLong(RuntimeCost::ms).sum();
      List<String> cached = new ArrayList<>();
      finished.forEach(f -> cached.addAll(f.cached()));
      RunInfo.Completion completion = RunInfo.Completion.COMPLETE;
      for (RunInfo f : finished) {
        completion = completion.and(f.completion());
      }
      RunInfo run = last == null ? null : relabelled(new RunInfo(last.toolVersion(), last.torchVersion(),
          last.presetsVersion(), last.seed(), last.tries(), last.jobs(), last.devices(), last.checksRun(), last.inputs(),
          first != null ? first.startedAt() : last.startedAt(), ms, last.commandLine(), last.configuration(), completion,
          cached));
      boolean completed = !ends.isEmpty() && ends.stream().allMatch(RunListener.RunEnd::completed)
          && ends.size() == ranOn.size();
      Set<String> inputErrors = new LinkedHashSet<>();
      ends.forEach(e -> inputErrors.addAll(e.inputErrors()));
      if (run != null) {
        to.runFinished(run, new RunListener.RunEnd(completed, List.copyOf(inputErrors)));
      }
      Set<String> ops = new LinkedHashSet<>();
      List<LibraryInfo> libraries = new ArrayList<>();
      Set<Path> seen = new LinkedHashSet<>();
      for (RunOutcome o : outcomes) {
        ops.addAll(o.ops());
        for (LibraryInfo l : o.libraries()) {
          if (seen.add(same(l.path()))) {
            libraries.add(l);
          }
        }
      }
      Set<String> errors = new LinkedHashSet<>();
      outcomes.forEach(o -> errors.addAll(o.inputErrors()));
      RunReport report = new RunReport(run, CheckCatalog.builtin(), results);
      return new RunOutcome(report, List.copyOf(errors), List.copyOf(ops), libraries, costs);
    }

    /** {@code run} naming the runtimes it ran on rather than this JVM's. */
    private RunInfo relabelled(RunInfo run) {
      String torch = String.join(", ", runtimes.stream().map(LibtorchRuntime::torch).toList());
      String presets = String.join(", ", runtimes.stream().map(LibtorchRuntime::presets).distinct().toList());
      return new RunInfo(run.toolVersion(), torch, presets, run.seed(), run.tries(), run.jobs(), run.devices(),
          run.checksRun(), run.inputs(), run.startedAt(), run.durationMs(), run.commandLine(), run.configuration(),
          run.completion(), run.cached());
    }
  }
}
