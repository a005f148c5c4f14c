package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.link.RunPackage;
import dev.opcheck4j.run.link.Wire;
import dev.opcheck4j.run.link.WorkerInfo;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.builtin.Evaluator;
import dev.opcheck4j.checks.Progress;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.torch.LibraryLoadException;
import dev.opcheck4j.torch.NativeStrings;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.Operator;
import dev.opcheck4j.torch.ReferenceFunction;
import dev.opcheck4j.torch.TensorFiles;
import dev.opcheck4j.torch.SchemaBaseline;
import dev.opcheck4j.torch.ValueBaseline;
import dev.opcheck4j.checks.baseline.BaselineValuesCheck;
import dev.opcheck4j.torch.TorchRuntime;
import dev.opcheck4j.torch.UnknownOpException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.bytedeco.javacpp.PointerScope;

/**
 * The worker's side of a run: loads libtorch and the op libraries, describes them as data, and
 * evaluates units. Each unit runs in its own {@link PointerScope}, so the native memory it
 * allocated is freed when it ends rather than when the garbage collector gets to it.
 */
public final class UnitRunner {
  private final TorchRuntime runtime;
  private final List<OpLibrary> libraries;
  /** The spec entries the parent sent ({@link Protocol.OpenOp}), by its number for each (an op may have several). */
  private final Map<Integer, Protocol.OpenOp> opened = new HashMap<>();
  private final Map<String, Operator> operators = new HashMap<>();
  private final ModelUnits models = new ModelUnits();
  private final ValueBaseline recorded;

  private UnitRunner(TorchRuntime runtime, List<OpLibrary> libraries, ValueBaseline recorded) {
    this.runtime = runtime;
    this.recorded = recorded;
    this.libraries = libraries;
  }

  /** Loads libtorch, then each target's library, calling {@code announce} with its path first. */
  public static UnitRunner load(Protocol.Init init, Consumer<String> announce) throws LibraryLoadException, SpecException {
    TorchRuntime runtime = TorchRuntime.get();
    // before the user's libraries, as a library's static initializer may already allocate or register
    dev.opcheck4j.torch.Companion.state();
    List<OpLibrary> libs = new ArrayList<>();
    for (java.nio.file.Path library : init.libraries()) {
      announce.accept(library.toString());
      libs.add(OpLibrary.load(library));
    }
    return new UnitRunner(runtime, libs, recorded(init.baseline()));
  }

  /** Keeps the spec entries the parent sends, for the units that name them. */
  public void open(List<Protocol.OpenOp> entries) {
    entries.forEach(o -> opened.put(o.ref(), o));
  }

  /** The outputs the run's baseline recorded, from the side file it names; null when it names none. */
  private static ValueBaseline recorded(java.nio.file.Path baseline) throws SpecException {
    if (baseline == null) {
      return null;
    }
    try {
      SchemaBaseline b = SchemaBaseline.read(baseline);
      if (b.values() == null) {
        return null;
      }
      java.nio.file.Path side = baseline.toAbsolutePath().resolveSibling(b.values());
      return Wire.read(java.nio.file.Files.readString(side), ValueBaseline.class);
    } catch (java.io.IOException | RuntimeException e) {
      throw new SpecException(baseline.toString(), "its recorded outputs cannot be read: " + e.getMessage());
    }
  }

  public WorkerInfo info() {
    List<LibraryInfo> out = new ArrayList<>();
    for (OpLibrary lib : libraries) {
      List<LibraryInfo.Op> ops = new ArrayList<>();
      for (String name : lib.ops()) {
        Operator op = operator(lib, name);
        ops.add(new LibraryInfo.Op(name, op.schema(), List.copyOf(op.table().keys()), op.tags()));
      }
      out.add(new LibraryInfo(lib.path(), ops, List.copyOf(lib.namespaces()), lib.danglingImpls()));
    }
    return new WorkerInfo(runtime.torchVersion(), runtime.presetsVersion(), runtime.cudaAvailable(), out);
  }

  /** Writes the coverage counts of the libraries built with it, made when first asked. */
  private GcovDumps gcov;
  /** The arc counters of the libraries built with coverage, made at the first kernel call on an input. */
  private ArcCounters arcs;

  /** Runs one unit and returns its answer; native memory it allocated is freed before returning. */
  public Answers.Answer run(Protocol.Unit<?> unit) {
    if (unit instanceof dev.opcheck4j.run.link.DumpCoverage d) {
      if (gcov == null) {
        gcov = GcovDumps.of(libraries.stream().map(OpLibrary::path).toList());
      }
      return gcov.dump(d.dir());
    }
    if (unit instanceof Protocol.LoadModel m) {
      return new Answers.ModelLoaded(models.load(m.file()));
    }
    if (unit instanceof Protocol.Forward f) {
      return new Answers.Forwarded(models.forward(f.inputs(), f.seed(), f.expect()));
    }
    if (unit instanceof RunPackage p) {
      try {
        // the presets of libtorch 2.10 (1.5.13) map no package loader: a worker on that runtime cannot load packages
        Class.forName("org.bytedeco.pytorch.AOTIModelPackageLoader", false, UnitRunner.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        return new Answers.PackageRan(dev.opcheck4j.torch.AotiRun.failed(dev.opcheck4j.torch.AotiRun.Stage.UNSUPPORTED,
            "the presets of libtorch " + runtime.torchVersion() + " map no AOTIModelPackageLoader"));
      }
      return new Answers.PackageRan(PackageUnits.run(p.file(), p.model(), p.inputs(), p.seed(), p.expect()));
    }
    if (unit instanceof Protocol.Synthesize s) {
      OpLibrary lib = libraries.get(s.target());
      Operator op = operator(lib, s.op());
      try (PointerScope scope = new PointerScope()) {
        return new Answers.Synthesized(ExampleSearch.search(lib, op, s.seed()));
      }
    }
    if (unit instanceof Protocol.CompileReference c) {
      try (PointerScope scope = new PointerScope()) {
        return compileReference(c);
      }
    }
    Protocol.OpUnit<?> u = (Protocol.OpUnit<?>) unit;
    Subject subject = subject(u.on());
    try (PointerScope scope = new PointerScope()) {
      if (u instanceof Protocol.Evaluate e) {
        Progress.unit(e.check());
        return new Answers.Checked(evaluate(check(e.check()), subject));
      }
      if (u instanceof Protocol.OnRejected r) {
        Progress.unit(r.check() + " (on an input the kernel rejected)");
        return new Answers.Checked(onRejected(check(r.check()), subject, r.rejected()));
      }
      if (u instanceof Protocol.SaveExample save) {
        Progress.unit("saving the input for a repro script");
        return ExampleFiles.save(subject, save.dir(), save.stem());
      }
      if (u instanceof Protocol.RecordOutputs) {
        Progress.unit("recording the outputs for the baseline");
        return new Answers.OutputsRecorded(record(subject));
      }
      Progress.unit(u instanceof Protocol.Accepts ? "the real kernel on the input (before any check)" : "materializing the input");
      return u instanceof Protocol.Accepts ? accepts(subject) : bind(subject);
    }
  }

  /** What a unit about an op (or, with no op, a library) runs on; the operator is looked up outside its scope. */
  private Subject subject(Protocol.On on) {
    OpLibrary lib = libraries.get(on.target());
    Operator op = on.op() == null ? null : operator(lib, on.op());
    OpSpec spec = on.ref() == Protocol.On.NO_REF ? OpSpec.bare(on.op() == null
        ? String.join("|", lib.namespaces()) + "::*" : on.op()) : entry(on.ref(), on.target(), on.op()).entry();
    ValueBaseline.Recorded then = recorded == null || on.example() == null || on.op() == null ? null
        : recorded.find(on.op(), on.example().ref()).orElse(null);
    return new Subject(lib, op, spec, on.device(), on.example(), on.seed(), then);
  }

  private static ValueBaseline.Recorded record(Subject s) {
    String ref = s.example().ref();
    try {
      var ex = Materializer.bind(s.op(), s.example(), s.device(), s.seed());
      return new ValueBaseline.Recorded(s.op().name(), ref, s.seed(), BaselineValuesCheck.record(s, ex, OpCall.call(s, ex)), null);
    } catch (ExampleException e) {
      return new ValueBaseline.Recorded(s.op().name(), ref, s.seed(), List.of(), "cannot be materialized: " + e.getMessage());
    } catch (OpCall.KernelError e) {
      return new ValueBaseline.Recorded(s.op().name(), ref, s.seed(), List.of(), e.getMessage());
    }
  }

  /** The entry the parent sent as {@code ref}, which it says is an entry of {@code op} (any op: null) in {@code target}. */
  private Protocol.OpenOp entry(int ref, int target, String op) {
    Protocol.OpenOp o = entry(ref);
    if (o.target() != target || op != null && !o.entry().op().equals(op)) {
      // the parent sends each entry with the first exchange that names it; a miss is a bug of the harness
      throw new IllegalStateException("the parent names entry " + ref + " for " + op + " in target " + target
          + ", which it sent for " + o.entry().op() + " in target " + o.target());
    }
    return o;
  }

  /** The entry the parent sent as {@code ref}. */
  private Protocol.OpenOp entry(int ref) {
    Protocol.OpenOp o = opened.get(ref);
    if (o == null) {
      throw new IllegalStateException("the parent names entry " + ref + ", which it has not sent to this worker");
    }
    return o;
  }

  private Answers.ReferenceCompiled compileReference(Protocol.CompileReference c) {
    Protocol.OpenOp o = entry(c.ref());
    OpSpec spec = o.entry();
    String op = spec.op();
    List<String> problems = new ArrayList<>();
    var schema = operator(libraries.get(o.target()), op).schema();
    if (spec.reference().isPresent()) {
      var reference = spec.reference().get();
      try {
        ReferenceFunction.compile(schema, reference);
      } catch (ReferenceFunction.Invalid e) {
        problems.add(reference.location() + ": op '" + op + "' \"reference\" " + e.getMessage());
      }
    }
    for (var example : spec.examples()) {
      if (example.expect().isPresent()) {
        var expect = example.expect().get();
        try {
          TensorFiles.outputs(expect.file(), ReferenceFunction.expectedValues(schema));
        } catch (TensorFiles.Unusable e) {
          problems.add(expect.location() + ": op '" + op + "' \"expect\" " + e.getMessage());
        }
      }
    }
    return new Answers.ReferenceCompiled(problems);
  }

  private static Check check(String id) {
    return BuiltinChecks.byId(id).orElseThrow(() -> new IllegalArgumentException("unknown check " + id));
  }

  /** The real kernel on an input; accepted, with the arcs it reached that no call of this worker had (issue 54). */
  private Answers.Acceptance accepts(Subject s) {
    if (arcs == null) {
      arcs = ArcCounters.of(libraries.stream().map(OpLibrary::path).toList());
    }
    try {
      if (arcs.any()) {
        arcs.fresh(); // what ran before this call is no part of its reach
      }
      OpCall.call(s, Materializer.bind(s.op(), s.example(), s.device(), s.seed()));
      return new Answers.Accepted(arcs.any() ? arcs.fresh() : List.of());
    } catch (ExampleException e) {
      return new Answers.Rejected("cannot be materialized: " + e.getMessage());
    } catch (OpCall.KernelError e) {
      return new Answers.Rejected(e.getMessage());
    }
  }

  private static Verdict onRejected(Check check, Subject s, String realError) {
    return Evaluator.onRejected(check, s, realError);
  }

  private static Answers.Binding bind(Subject s) {
    try {
      return new Answers.Bound(Materializer.bind(s.op(), s.example(), s.device(), s.seed()).description());
    } catch (ExampleException e) {
      return new Answers.Unbindable(e.getMessage());
    }
  }

  /** Evaluates a check; a kernel that raised inside it is a finding, any other exception a harness error. */
  public static Verdict evaluate(Check check, Subject subject) {
    return Evaluator.evaluate(check, subject);
  }

  // operators are looked up outside any unit's scope: they live as long as the worker
  private Operator operator(OpLibrary lib, String name) {
    return operators.computeIfAbsent(lib.path() + "|" + name, k -> {
      try {
        return lib.op(name);
      } catch (UnknownOpException e) {
        throw new IllegalArgumentException(e.getMessage(), e);
      }
    });
  }
}
