package dev.opcheck4j.run;

import dev.opcheck4j.run.link.FoundExample;
import dev.opcheck4j.run.session.CheckOn;
import dev.opcheck4j.run.session.Described;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.run.session.Prerequisites;
import dev.opcheck4j.run.session.StrayDeaths;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.run.property.PropertyPhase;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Answers;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.checks.BaselineCheck;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.LibraryCheck;
import dev.opcheck4j.checks.LibraryView;
import dev.opcheck4j.checks.FinishedOp;
import dev.opcheck4j.checks.OpCheck;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.ResultsCheck;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.DispatchTable;
import dev.opcheck4j.torch.OpSchema;
import java.time.Instant;
import java.util.LinkedHashMap;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.UnknownOpException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs every applicable check on every (op, device, example) of a plan. Each result goes to the
 * listener as soon as it exists; one op's failure, a harness error or a dying worker never stops
 * the others. The runner plans and keeps the prerequisites in this (parent) process; every unit
 * that touches libtorch goes to the op's {@link Kernels}, and a worker that dies on a unit turns
 * it into the result of the supervisor check that covers how it died. What is special about a check
 * (what it says of an unknown op, whether it wants a synthesized example, which names its library
 * results are about) is asked of the check, never decided here by its id.
 */
public final class Runner {
  private final RunPlan plan;
  private final boolean cudaAvailable;
  private final List<String> inputErrors = java.util.Collections.synchronizedList(new ArrayList<>());
  /** The kernels' line coverage, of the ops of libraries built with gcov's coverage. */
  private final dev.opcheck4j.run.lines.KernelCoverage kernelLines = new dev.opcheck4j.run.lines.KernelCoverage();

  /** Whether this run writes each failure as a PyTorch script ({@code --repro}). */
  public boolean writesScripts() {
    return plan.repro() != null;
  }

  public Runner(RunPlan plan, boolean cudaAvailable) {
    this.plan = plan;
    this.cudaAvailable = cudaAvailable;
  }

  /** The line coverage of each op of a library built with gcov's coverage, by op. */
  public List<dev.opcheck4j.api.KernelLines> kernelLines() {
    return kernelLines.lines();
  }

  /** Problems with the input found while running (unknown op names), one line each. */
  public List<String> inputErrors() {
    return List.copyOf(inputErrors);
  }

  public void runLibraryChecks(RunPlan.Target target, Kernels kernels, RunListener sink) {
    SeverityPolicy severity = severity(target);
    String op = libraryOp(target);
    OpSession session = new OpSession(plan, target, OpSpec.bare(op), kernels, severity);
    String file = target.library().path().getFileName().toString();
    for (Check check : plan.checks()) {
      if (check instanceof BaselineCheck baseline) {
        // compares data the worker reported with the baseline: runs here, in the parent
        started(sink, op, check, null, null);
        runBaseline(baseline, target, op, session, sink);
      } else if (check instanceof LibraryCheck library) {
        started(sink, op, check, null, null);
        long t = System.nanoTime();
        Kernels.Exchange x = session.evaluate(check.id(), null, null, null);
        if (x.death().isPresent()) {
          sink.result(session.result(x.death().get(), op, check, check.id(), null, null, List.of(), micros(t)));
          continue;
        }
        Verdict v = x.single(Answers.Checked.class).verdict();
        long us = micros(t);
        for (String about : library.resultsAbout(v, op)) {
          // through the op session's road, which writes the --repro script of a failure
          sink.result(session.result(about, check, null, CheckResult.NONE, v, us, session.repro(about, check.id(), null,
              null, null, false)).aboutLibrary(file));
        }
      }
    }
    new PackageRuns(plan, cudaAvailable).run(target, session, op, sink, inputErrors);
    reportStrays(session, target, sink);
  }

  /**
   * The schema baseline's verdicts, one per op, through the library's session like every other result (a
   * failure's {@code --repro} script says why a script cannot reproduce it).
   */
  private void runBaseline(BaselineCheck check, RunPlan.Target target, String libraryOp, OpSession session,
      RunListener sink) {
    long t = System.nanoTime();
    Map<String, OpSchema> schemas = new LinkedHashMap<>();
    Map<String, DispatchTable> tables = new LinkedHashMap<>();
    for (LibraryInfo.Op o : target.library().ops()) {
      schemas.put(o.name(), o.schema());
      Map<String, String> kernels = new LinkedHashMap<>();
      o.dispatchKeys().forEach(k -> kernels.put(k, "(reported by the worker)"));
      tables.put(o.name(), new DispatchTable(kernels));
    }
    LibraryView view = new LibraryView(target.library().path().getFileName().toString(), schemas, tables);
    List<BaselineCheck.OpVerdict> verdicts;
    try {
      verdicts = check.evaluateEach(view, plan.baseline());
    } catch (RuntimeException e) {
      verdicts = List.of(new BaselineCheck.OpVerdict(libraryOp,
          Verdict.errored(e.getClass().getSimpleName() + ": " + e.getMessage())));
    }
    long us = micros(t);
    for (BaselineCheck.OpVerdict v : verdicts) {
      sink.result(session.result(v.op(), check, null, CheckResult.NONE, v.verdict(), us,
          session.repro(v.op(), check.id(), null, null, null, false)));
    }
  }

  /**
   * The units every run of {@code spec}'s op gives at least one result for ({@code spec} null: the
   * target's library-wide checks), each a check on a device (or on none): what a result cache's entry
   * of it must hold. They are the keys of the op's {@link OpPlan}, the one {@link #runOp} runs, which
   * emits a result for each, whether it runs, is skipped, or the worker dies.
   */
  public List<CheckOn> units(RunPlan.Target target, OpSpec spec) {
    if (spec == null) {
      return plan.checks().stream().filter(c -> c instanceof LibraryCheck).map(c -> new CheckOn(c.id(), null)).toList();
    }
    return target.library().op(spec.op()).map(op -> opPlan(op, spec, Map.of()).keys()).orElse(List.of());
  }

  /** The check runs of {@code spec}'s entry of {@code op}, with the examples that do not fit its schema. */
  private OpPlan opPlan(LibraryInfo.Op op, OpSpec spec, Map<Example, String> invalid) {
    return OpPlan.of(plan.checks(), plan.baseline(), OpTags.of(op.tags(), spec), devicesFor(spec), spec.examples(),
        invalid);
  }

  /** What a finding of the target is: the run's policy, made stricter by its spec's. */
  private SeverityPolicy severity(RunPlan.Target target) {
    return plan.severity().and(target.severity());
  }

  public void runOp(RunPlan.Target target, OpSpec given, Kernels kernels, RunListener out) {
    Coverage.Fold covered = new Coverage.Fold(plan.tries());
    FinishedOp.Gathered gathered = new FinishedOp.Gathered();
    RunListener sink = RunListener.both(out, RunListener.both(covered, gathered));
    SeverityPolicy severity = severity(target);
    OpSpec spec = given;
    LibraryInfo.Op op = target.library().op(spec.op()).orElse(null);
    if (op == null) {
      List<String> near = UnknownOpException.nearest(spec.op(), target.library().opNames(), 3);
      UnknownOpException e = new UnknownOpException(spec.op(), near, target.library().path().getFileName().toString());
      inputErrors.add(spec.ref() + ": " + e.getMessage());
      // a session with no examples: the op has none to call, and its results take the one road
      OpSession unknown = new OpSession(plan, target, OpSpec.bare(spec.op()), kernels, severity);
      for (Check check : BuiltinChecks.all()) {
        if (check instanceof OpCheck opCheck) {
          var v = opCheck.onUnknownOp(e, target.library().path().toString());
          if (v.isPresent()) {
            sink.result(unknown.result(spec.op(), check, null, CheckResult.NONE, v.get(), 0,
                unknown.repro(spec.op(), check.id(), null, null, null, false)));
          }
        }
      }
      return;
    }
    OpSession session = new OpSession(plan, target, spec, kernels, severity);
    var lines = kernelLines.start(op.name(), target.library().path(), kernels, session.deadline());
    OpCheck synthesizing = wantsExample(spec);
    if (synthesizing != null) {
      long t = System.nanoTime();
      Kernels.Exchange x = session.synthesize(op.name());
      FoundExample found;
      if (x.death().isPresent()) {
        sink.result(session.result(x.death().get(), op.name(), null, synthesizing.id() + " (synthesizing an example)",
            Device.CPU, null, List.of(), micros(t)));
        found = new FoundExample(java.util.Optional.empty(), "synthesizing an example killed the worker: "
            + x.death().get().message());
      } else {
        found = x.single(Answers.Synthesized.class).found();
      }
      spec = found.applyTo(spec);
      session = session.withSpec(spec);
    }
    Prerequisites seen = new Prerequisites();
    List<Device> devices = devicesFor(spec);
    Map<Example, String> invalid = validate(op, spec, session);
    OpTags tags = OpTags.of(op.tags(), spec);
    CheckRun.Op ctx = new CheckRun.Op(session, spec, op, seen, sink, cudaAvailable);
    CheckBatch batch = new CheckBatch(session, op.name());
    for (OpPlan.Step step : opPlan(op, spec, invalid).steps()) {
      batch.add(() -> new CheckRun(ctx, step.check(), step.device(), step.example(), step.preset()), step.check());
    }
    batch.flush();
    lines.examplesDone();
    if (plan.tries() > 0 && invalid.isEmpty()) {
      PropertyPhase generated = new PropertyPhase(plan, session, spec, op, sink, target.allTries());
      for (Device d : devices) {
        if (d != Device.META && (d != Device.CUDA || cudaAvailable)) {
          generated.run(d, seen);
        }
      }
    }
    dev.opcheck4j.api.KernelLines ran = lines.finish();
    reportStrays(session, target, out);
    judgeCoverage(session, new FinishedOp(op.name(), covered.coverage(), required(spec), tags, gathered.results(), ran,
        target.minLineCoverage()), out);
  }

  /**
   * One {@code kernel.crash} about the library for each crash that was not the unit in flight's ({@link
   * StrayDeaths}): outside the op's results, which stand as the units gave them when sent again.
   */
  private static void reportStrays(OpSession session, RunPlan.Target target, RunListener sink) {
    for (StrayDeaths.Stray s : session.strays()) {
      sink.result(session.result(s.death(), libraryOp(target), null, s.doing(), null, null, List.of(
          Fact.of("op running", s.op()),
          Fact.of("sent again", "on a new worker, the same units all answered: the crash came from a thread native"
              + " code started earlier and left running, not from that call")), 0)
          .aboutLibrary(target.library().path().getFileName().toString()));
    }
  }

  /** What results about the target's whole library name as their op: {@code ns::*} (namespaces joined by |). */
  private static String libraryOp(RunPlan.Target target) {
    return String.join("|", target.library().namespaces()) + "::*";
  }

  /** The check families the run and {@code spec} require, in order. */
  private List<String> required(OpSpec spec) {
    List<String> required = new ArrayList<>(plan.require());
    spec.require().stream().filter(f -> !required.contains(f)).forEach(required::add);
    return required;
  }

  /**
   * The checks of the op's finished results, after every other result of it; through the op's session, so
   * that a failure gets its PyTorch script ({@code --repro}) as every other one does.
   */
  private void judgeCoverage(OpSession session, FinishedOp done, RunListener sink) {
    String op = done.op();
    for (Check check : plan.checks()) {
      if (check instanceof ResultsCheck judge) {
        for (ResultsCheck.DeviceVerdict v : judge.judge(done)) {
          // no rerun line: rerunning this check alone would not run the family it asks for
          sink.result(session.result(op, check, v.device() == null ? null : Device.parse(v.device()).orElseThrow(),
              CheckResult.NONE, v.verdict(), 0, null));
        }
      }
    }
  }

  /** The first check that wants an example synthesized for {@code spec} (the op gives none), or null. */
  private static OpCheck wantsExample(OpSpec spec) {
    for (Check check : BuiltinChecks.all()) {
      if (check instanceof OpCheck opCheck && opCheck.wantsSynthesizedExample(spec)) {
        return opCheck;
      }
    }
    return null;
  }

  /** Tells the listener a check starts running on one (op, device, example). */
  public static void started(RunListener sink, String op, Check check, Device device, Example example) {
    sink.unitStarted(new RunListener.UnitEvent(op, check.id(), device == null ? CheckResult.NONE : device.label(),
        example == null ? CheckResult.NONE : example.ref(), Instant.now()));
  }

  /** Binds every example on the CPU once; the ones that do not fit the schema (or the machine) are input errors. */
  private Map<Example, String> validate(LibraryInfo.Op op, OpSpec spec, OpSession session) {
    Map<Example, String> invalid = new HashMap<>();
    for (Example ex : spec.examples()) {
      Described d = session.describe(op.name(), Device.CPU, ex);
      if (d instanceof Described.Unfit u) {
        invalid.put(ex, u.why());
        inputErrors.add(u.why());
      } else if (d instanceof Described.Killed k) {
        invalid.put(ex, "materializing it killed the worker: " + k.death().message());
      }
    }
    return invalid;
  }

  private List<Device> devicesFor(OpSpec spec) {
    return plan.devices().stream()
        .filter(d -> spec.devices().isEmpty() || spec.devices().contains(d.label()))
        .filter(d -> spec.domain().allowsDevice(d.label()))
        .toList();
  }

  public static long micros(long t0) {
    return CheckRun.micros(t0);
  }
}
