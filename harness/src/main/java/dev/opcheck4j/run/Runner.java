package dev.opcheck4j.run;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ResultListener;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.LibraryView;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.PerOpCheck;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.generate.ExamplesCheck;
import dev.opcheck4j.checks.registration.DanglingImplCheck;
import dev.opcheck4j.checks.registration.ExistsCheck;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.NativeStrings;
import dev.opcheck4j.torch.Operator;
import dev.opcheck4j.torch.TorchRuntime;
import dev.opcheck4j.torch.UnknownOpException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs every applicable check on every (op, device, example) of a plan. Each result goes to the
 * listener as soon as it exists; one op's failure or a harness error never stops the others.
 */
public final class Runner {
  private final TorchRuntime runtime;
  private final List<String> inputErrors = new ArrayList<>();
  /** Whether the target being run makes warnings failures. */
  private boolean strict;

  public Runner(TorchRuntime runtime) {
    this.runtime = runtime;
  }

  /** Problems with the input found while running (unknown op names), one line each. */
  public List<String> inputErrors() {
    return List.copyOf(inputErrors);
  }

  public RunReport run(RunPlan plan, ResultListener listener) {
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    List<CheckResult> all = new ArrayList<>();
    ResultListener sink =
        r -> {
          all.add(r);
          listener.accept(r);
        };
    for (RunPlan.Target target : plan.targets()) {
      strict = plan.warningsAsErrors() || target.warningsAsErrors();
      runLibraryChecks(plan, target, sink);
      for (OpSpec spec : target.ops()) {
        runOp(plan, target, spec, sink);
      }
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    return new RunReport(runtime.torchVersion(), runtime.presetsVersion(), started, ms, all,
        plan.checks().stream().map(Check::info).toList());
  }

  private void runLibraryChecks(RunPlan plan, RunPlan.Target target, ResultListener sink) {
    for (Check check : plan.checks()) {
      if (check.scope() != CheckInfo.Scope.LIBRARY) {
        continue;
      }
      String op = String.join("|", target.library().namespaces()) + "::*";
      long t = System.nanoTime();
      if (check instanceof PerOpCheck perOp) {
        runPerOp(perOp, plan, target, op, sink);
        continue;
      }
      Subject subject = new Subject(target.library(), null, OpSpec.bare(op), null, null, plan.seed());
      Verdict v = evaluate(check, subject);
      long ms = (System.nanoTime() - t) / 1_000_000;
      if (check instanceof DanglingImplCheck && v.outcome() == Outcome.FAILED) {
        for (String name : DanglingImplCheck.danglingNames(v)) {
          sink.accept(result(name, check, CheckResult.NONE, CheckResult.NONE, v, ms, strict));
        }
      } else {
        sink.accept(result(op, check, CheckResult.NONE, CheckResult.NONE, v, ms, strict));
      }
    }
  }

  private void runPerOp(PerOpCheck check, RunPlan plan, RunPlan.Target target, String libraryOp, ResultListener sink) {
    long t = System.nanoTime();
    List<PerOpCheck.OpVerdict> verdicts;
    try {
      verdicts = check.evaluateEach(LibraryView.of(target.library()), plan.baseline());
    } catch (Exception | LinkageError | AssertionError e) {
      verdicts = List.of(new PerOpCheck.OpVerdict(libraryOp,
          Verdict.errored(e.getClass().getSimpleName() + ": " + NativeStrings.firstLine(e.getMessage()))));
    }
    long ms = (System.nanoTime() - t) / 1_000_000;
    for (PerOpCheck.OpVerdict v : verdicts) {
      sink.accept(result(v.op(), check, CheckResult.NONE, CheckResult.NONE, v.verdict(), ms, strict));
    }
  }

  private void runOp(RunPlan plan, RunPlan.Target target, OpSpec given, ResultListener sink) {
    OpSpec spec = given;
    Operator op;
    try {
      op = target.library().op(spec.op());
    } catch (UnknownOpException e) {
      inputErrors.add(spec.ref() + ": " + e.getMessage());
      Verdict v =
          Verdict.failed(
              spec.op() + " registered by " + target.library().path().getFileName(),
              "not registered",
              e.suggestions().isEmpty()
                  ? "check the name in the spec against './opcheck list --library " + target.library().path() + "'"
                  : "did you mean " + String.join(", ", e.suggestions()) + "?");
      sink.accept(result(spec.op(), new ExistsCheck(), CheckResult.NONE, CheckResult.NONE, v, 0, strict));
      return;
    }
    // no silent pass: an op without examples gets one synthesized from its schema, or says why not
    if (spec.examples().isEmpty() && spec.skipReason(ExamplesCheck.ID).isEmpty()) {
      spec = ExampleSearch.search(target.library(), op, plan.seed()).applyTo(spec);
    }
    Map<String, Outcome> seen = new HashMap<>();
    List<Device> devices = devicesFor(plan, spec);
    Map<Example, String> invalid = validate(op, spec, plan.seed());
    for (Map.Entry<String, Vary.Range> r : spec.vary().ranges().entrySet()) {
      if (op.schema().argument(r.getKey()).isEmpty()) {
        inputErrors.add(r.getValue().location() + ": \"vary\" names '" + r.getKey() + "', which is not an argument of "
            + op.name() + "; its arguments: " + String.join(", ", op.schema().arguments().stream().map(a -> a.name()).toList()));
      }
    }
    for (Check check : plan.checks()) {
      switch (check.scope()) {
        case LIBRARY, GENERATED -> {}
        case OP -> once(plan, target, spec, op, check, null, null, seen, sink);
        case DEVICE -> {
          for (Device d : devices) {
            if (check.appliesTo(d)) {
              once(plan, target, spec, op, check, d, null, seen, sink);
            }
          }
        }
        case EXAMPLE -> {
          for (Device d : devices) {
            if (!check.appliesTo(d)) {
              continue;
            }
            if (spec.examples().isEmpty()) {
              Verdict v = Verdict.skipped("no examples for this op (give some in a spec file)");
              emit(op, check, d, null, v, 0, seen, sink);
            }
            for (Example ex : spec.examples()) {
              if (invalid.containsKey(ex)) {
                emit(op, check, d, ex, Verdict.skipped("invalid example: " + invalid.get(ex)), 0, seen, sink);
              } else {
                once(plan, target, spec, op, check, d, ex, seen, sink);
              }
            }
          }
        }
      }
    }
    if (plan.tries() > 0 && invalid.isEmpty()) {
      PropertyPhase generated = new PropertyPhase(plan, target, spec, op, sink, strict);
      for (Device d : devices) {
        if (d != Device.META && (d != Device.CUDA || runtime.cudaAvailable())) {
          generated.run(d, seen);
        }
      }
    }
  }

  /** Binds every example on the CPU once; the ones that do not fit the schema are input errors. */
  private Map<Example, String> validate(Operator op, OpSpec spec, long seed) {
    Map<Example, String> invalid = new HashMap<>();
    for (Example ex : spec.examples()) {
      try {
        Materializer.bind(op, ex, Device.CPU, seed);
      } catch (ExampleException e) {
        invalid.put(ex, e.getMessage());
        inputErrors.add(e.getMessage());
      }
    }
    return invalid;
  }

  private List<Device> devicesFor(RunPlan plan, OpSpec spec) {
    return plan.devices().stream()
        .filter(d -> spec.devices().isEmpty() || spec.devices().contains(d.label()))
        .filter(d -> spec.domain().allowsDevice(d.label()))
        .toList();
  }

  private void once(
      RunPlan plan,
      RunPlan.Target target,
      OpSpec spec,
      Operator op,
      Check check,
      Device device,
      Example example,
      Map<String, Outcome> seen,
      ResultListener sink) {
    long t = System.nanoTime();
    Verdict v = precondition(check, spec, device, seen);
    if (v == null) {
      v = evaluate(check, new Subject(target.library(), op, spec, device, example, plan.seed()));
    }
    emit(op, check, device, example, v, (System.nanoTime() - t) / 1_000_000, seen, sink);
  }

  /** A Skipped verdict when the check cannot run here, or null when it can. */
  private Verdict precondition(Check check, OpSpec spec, Device device, Map<String, Outcome> seen) {
    var why = spec.skipReason(check.id());
    if (why.isPresent()) {
      return Verdict.skipped("skipped by the spec: " + why.get());
    }
    if (device == Device.CUDA && !runtime.cudaAvailable()) {
      return Verdict.skipped("no CUDA device in this process (torch.cuda_is_available() is false)");
    }
    for (String required : check.requires()) {
      Outcome o = seen.getOrDefault(key(required, device), seen.get(key(required, null)));
      if (o != null && o != Outcome.PASSED && o != Outcome.WARNING) {
        return Verdict.skipped("requires " + required + ", which " + o.label());
      }
    }
    return null;
  }

  static Verdict evaluate(Check check, Subject subject) {
    try {
      return check.evaluate(subject);
    } catch (OpCall.KernelError e) {
      // a kernel that raised inside a check that needed it to run is a finding, not a harness bug
      return Verdict.failed(
          "the kernel runs on the example, as it did for kernel.error",
          "raised: " + e.getMessage(),
          "a kernel that raises only sometimes depends on hidden state; see determinism");
    } catch (Exception | LinkageError | AssertionError e) {
      return Verdict.errored(e.getClass().getSimpleName() + ": " + NativeStrings.firstLine(e.getMessage()));
    }
  }

  private void emit(
      Operator op,
      Check check,
      Device device,
      Example example,
      Verdict v,
      long ms,
      Map<String, Outcome> seen,
      ResultListener sink) {
    String dev = device == null ? CheckResult.NONE : device.label();
    String ex = example == null ? CheckResult.NONE : example.ref();
    CheckResult r = result(op.name(), check, dev, ex, v, ms, strict);
    // the worst outcome over a device's examples decides what dependants see
    seen.merge(key(check.id(), device), r.outcome(), Runner::worse);
    sink.accept(r);
  }

  /** Severity order: passed < warning < skipped < failed < errored. */
  private static Outcome worse(Outcome a, Outcome b) {
    return severity(a) >= severity(b) ? a : b;
  }

  private static int severity(Outcome o) {
    return switch (o) {
      case PASSED -> 0;
      case WARNING -> 1;
      case SKIPPED -> 2;
      case FAILED -> 3;
      case ERRORED -> 4;
    };
  }

  private static String key(String checkId, Device device) {
    return checkId + "@" + (device == null ? "-" : device.label());
  }

  /**
   * The result of a verdict: a check's finding (a FAILED verdict) has the outcome its severity gives,
   * WARNING for a warning check unless {@code strict} makes warnings failures.
   */
  static CheckResult result(
      String op, Check check, String device, String example, Verdict v, long ms, boolean strict) {
    Outcome o = v.outcome() == Outcome.FAILED ? check.info().findingOutcome(strict) : v.outcome();
    return new CheckResult(op, check.id(), device, example, o, v.facts(), ms);
  }

}
