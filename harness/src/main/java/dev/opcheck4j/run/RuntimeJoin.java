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

/** The listener of every runtime's run: one run to {@code to}, each result tagged with its runtime. */
final class RuntimeJoin {
  private final RunListener to;
  private final List<LibtorchRuntime> runtimes;
  private RunInfo first;
  private boolean started;
  private boolean planned;
  /** Whether runtime.agree runs once the runtimes ran: an op's examples recorded on each, told as one more op. */
  private final boolean agreeing;
  private final List<RunInfo> finished = new ArrayList<>();
  private final List<RunListener.RunEnd> ends = new ArrayList<>();

  RuntimeJoin(RunListener to, List<LibtorchRuntime> runtimes, boolean agreeing) {
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
        to.unitStarted(tag ? unit.onRuntime(runtime.torch()) : unit);
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
        // an op replayed on each runtime is named once per runtime, as the summary's rows name it: ns::op @2.10.0
        finished.add(tag ? run.withCached(run.cached().stream().map(c -> c + " @" + runtime.torch()).toList()) : run);
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
  List<CheckResult> skipped(RuntimeRefusal r, List<RunOutcome> outcomes) {
    Map<String, CheckResult> byKey = new LinkedHashMap<>();
    String file = r.library().getFileName().toString();
    for (RunOutcome o : outcomes) {
      Set<String> ops = new LinkedHashSet<>();
      o.libraries().stream().filter(l -> RuntimeRuns.same(l.path()).equals(RuntimeRuns.same(r.library())))
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
  RunOutcome finish(List<RunOutcome> outcomes, List<CheckResult> results, List<RuntimeCost> costs, List<String> ranOn,
      List<RuntimeRefusal> refusals) {
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
        if (seen.add(RuntimeRuns.same(l.path()))) {
          libraries.add(l);
        }
      }
    }
    Set<String> errors = new LinkedHashSet<>();
    outcomes.forEach(o -> errors.addAll(o.inputErrors()));
    RunReport report = new RunReport(run, CheckCatalog.builtin(), results);
    return new RunOutcome(report, List.copyOf(errors), List.copyOf(ops), libraries, null, costs, refusals);
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
