package dev.opcheck4j.run;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ResultListener;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.LibraryView;
import dev.opcheck4j.checks.PerOpCheck;
import dev.opcheck4j.torch.DispatchTable;
import dev.opcheck4j.torch.OpSchema;
import java.util.LinkedHashMap;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.generate.ExamplesCheck;
import dev.opcheck4j.checks.registration.DanglingImplCheck;
import dev.opcheck4j.checks.registration.ExistsCheck;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.Vary;
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
 * it into a {@code kernel.crash} or {@code kernel.timeout} result.
 */
public final class Runner {
  private final RunPlan plan;
  private final boolean cudaAvailable;
  private final List<String> inputErrors = java.util.Collections.synchronizedList(new ArrayList<>());

  public Runner(RunPlan plan, boolean cudaAvailable) {
    this.plan = plan;
    this.cudaAvailable = cudaAvailable;
  }

  /** Problems with the input found while running (unknown op names), one line each. */
  public List<String> inputErrors() {
    return List.copyOf(inputErrors);
  }

  void runLibraryChecks(RunPlan.Target target, Kernels kernels, ResultListener sink) {
    boolean strict = strict(target);
    String op = String.join("|", target.library().namespaces()) + "::*";
    OpUnits units = new OpUnits(plan, target, OpSpec.bare(op), kernels, strict);
    for (Check check : plan.checks()) {
      if (check.scope() != CheckInfo.Scope.LIBRARY) {
        continue;
      }
      long t = System.nanoTime();
      if (check instanceof PerOpCheck perOp) {
        // compares data the worker reported with the baseline: runs here, in the parent
        runPerOp(perOp, target, op, sink, strict);
        continue;
      }
      Verdict v;
      try {
        v = units.evaluate(check.id(), null, null, null);
      } catch (KernelDeath d) {
        sink.accept(units.result(d, op, check.id(), null, null, List.of(), micros(t)));
        continue;
      }
      long us = micros(t);
      String file = target.library().path().getFileName().toString();
      if (check instanceof DanglingImplCheck && v.outcome() == Outcome.FAILED) {
        // one result per dangling name, each about the library (the name is no op the library defines)
        for (String name : DanglingImplCheck.danglingNames(v)) {
          sink.accept(result(name, check, CheckResult.NONE, CheckResult.NONE, v, us, strict).aboutLibrary(file));
        }
      } else {
        sink.accept(result(op, check, CheckResult.NONE, CheckResult.NONE, v, us, strict).aboutLibrary(file));
      }
    }
  }

  private void runPerOp(PerOpCheck check, RunPlan.Target target, String libraryOp, ResultListener sink, boolean strict) {
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
    List<PerOpCheck.OpVerdict> verdicts;
    try {
      verdicts = check.evaluateEach(view, plan.baseline());
    } catch (RuntimeException e) {
      verdicts = List.of(new PerOpCheck.OpVerdict(libraryOp,
          Verdict.errored(e.getClass().getSimpleName() + ": " + e.getMessage())));
    }
    long us = micros(t);
    for (PerOpCheck.OpVerdict v : verdicts) {
      sink.accept(result(v.op(), check, CheckResult.NONE, CheckResult.NONE, v.verdict(), us, strict));
    }
  }

  /** Whether the target's findings of warning checks are failures (the run's flag or its spec's). */
  private boolean strict(RunPlan.Target target) {
    return plan.warningsAsErrors() || target.warningsAsErrors();
  }

  void runOp(RunPlan.Target target, OpSpec given, Kernels kernels, ResultListener sink) {
    boolean strict = strict(target);
    OpSpec spec = given;
    LibraryInfo.Op op = target.library().op(spec.op()).orElse(null);
    if (op == null) {
      List<String> near = UnknownOpException.nearest(spec.op(), target.library().opNames(), 3);
      UnknownOpException e = new UnknownOpException(spec.op(), near, target.library().path().getFileName().toString());
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
    OpUnits units = new OpUnits(plan, target, spec, kernels, strict);
    // no silent pass: an op without examples gets one synthesized from its schema (in the worker), or says why not
    if (spec.examples().isEmpty() && spec.skipReason(ExamplesCheck.ID).isEmpty()) {
      long t = System.nanoTime();
      ExampleSearch.Found found;
      try {
        found = units.synthesize(op.name());
      } catch (KernelDeath d) {
        sink.accept(units.result(d, op.name(), ExamplesCheck.ID + " (synthesizing an example)", Device.CPU, null,
            List.of(), micros(t)));
        found = new ExampleSearch.Found(java.util.Optional.empty(), "synthesizing an example killed the worker: "
            + d.getMessage());
      }
      spec = found.applyTo(spec);
      units = units.withSpec(spec);
    }
    Map<String, Outcome> seen = new HashMap<>();
    List<Device> devices = devicesFor(spec);
    Map<Example, String> invalid = validate(op, spec, units);
    for (Map.Entry<String, Vary.Range> r : spec.vary().ranges().entrySet()) {
      if (op.schema().argument(r.getKey()).isEmpty()) {
        inputErrors.add(r.getValue().location() + ": \"vary\" names '" + r.getKey() + "', which is not an argument of "
            + op.name() + "; its arguments: " + String.join(", ", op.schema().arguments().stream().map(a -> a.name()).toList()));
      }
    }
    for (Check check : plan.checks()) {
      switch (check.scope()) {
        case LIBRARY, GENERATED, SUPERVISOR -> {}
        case OP -> once(units, spec, op, check, null, null, seen, sink);
        case DEVICE -> {
          for (Device d : devices) {
            if (check.appliesTo(d)) {
              once(units, spec, op, check, d, null, seen, sink);
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
              emit(units, op, check, d, null, v, 0, seen, sink);
            }
            for (Example ex : spec.examples()) {
              if (invalid.containsKey(ex)) {
                emit(units, op, check, d, ex, Verdict.skipped("invalid example: " + invalid.get(ex)), 0, seen, sink);
              } else {
                once(units, spec, op, check, d, ex, seen, sink);
              }
            }
          }
        }
      }
    }
    if (plan.tries() > 0 && invalid.isEmpty()) {
      PropertyPhase generated = new PropertyPhase(plan, units, spec, op, sink, strict);
      for (Device d : devices) {
        if (d != Device.META && (d != Device.CUDA || cudaAvailable)) {
          generated.run(d, seen);
        }
      }
    }
  }

  /** Binds every example on the CPU once; the ones that do not fit the schema (or the machine) are input errors. */
  private Map<Example, String> validate(LibraryInfo.Op op, OpSpec spec, OpUnits units) {
    Map<Example, String> invalid = new HashMap<>();
    for (Example ex : spec.examples()) {
      try {
        units.describe(op.name(), Device.CPU, ex);
      } catch (OpUnits.InvalidExample e) {
        invalid.put(ex, e.getMessage());
        inputErrors.add(e.getMessage());
      } catch (KernelDeath d) {
        invalid.put(ex, "materializing it killed the worker: " + d.getMessage());
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

  private void once(
      OpUnits units,
      OpSpec spec,
      LibraryInfo.Op op,
      Check check,
      Device device,
      Example example,
      Map<String, Outcome> seen,
      ResultListener sink) {
    long t = System.nanoTime();
    Verdict v = precondition(check, spec, device, seen);
    if (v == null) {
      v = units.stopped().orElse(null);
    }
    if (v == null) {
      try {
        v = units.evaluate(check.id(), op.name(), device, example);
      } catch (KernelDeath d) {
        seen.merge(key(check.id(), device), Outcome.FAILED, Runner::worse);
        sink.accept(units.result(d, op.name(), check.id(), device, example, List.of(), micros(t)));
        return;
      }
    }
    emit(units, op, check, device, example, v, micros(t), seen, sink);
  }

  /** A Skipped verdict when the check cannot run here, or null when it can. */
  private Verdict precondition(Check check, OpSpec spec, Device device, Map<String, Outcome> seen) {
    var why = spec.skipReason(check.id());
    if (why.isPresent()) {
      return Verdict.skipped("skipped by the spec: " + why.get());
    }
    if (device == Device.CUDA && !cudaAvailable) {
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

  private void emit(
      OpUnits units,
      LibraryInfo.Op op,
      Check check,
      Device device,
      Example example,
      Verdict v,
      long micros,
      Map<String, Outcome> seen,
      ResultListener sink) {
    String dev = device == null ? CheckResult.NONE : device.label();
    String ex = example == null ? CheckResult.NONE : example.ref();
    CheckResult r = result(op.name(), check, dev, ex, v, micros, units.strict());
    // the worst outcome over a device's examples decides what dependants see
    seen.merge(key(check.id(), device), r.outcome(), Runner::worse);
    sink.accept(r);
  }

  static long micros(long t0) {
    return (System.nanoTime() - t0) / 1_000;
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
      String op, Check check, String device, String example, Verdict v, long micros, boolean strict) {
    Outcome o = v.outcome() == Outcome.FAILED ? new dev.opcheck4j.api.SeverityPolicy(strict).findingOutcome(check.info()) : v.outcome();
    return new CheckResult(op, check.id(), device, example, o, v.facts(), micros);
  }

}
