package dev.opcheck4j.run.worker;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Evaluator;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.run.ExampleSearch;
import dev.opcheck4j.run.LibraryInfo;
import dev.opcheck4j.run.Protocol;
import dev.opcheck4j.run.RunRequest;
import dev.opcheck4j.run.Wire;
import dev.opcheck4j.run.WorkerInfo;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.LibraryLoadException;
import dev.opcheck4j.torch.NativeStrings;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.Operator;
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
  private final List<Map<String, OpSpec>> specs;
  private final Map<String, Operator> operators = new HashMap<>();
  private final ModelUnits models = new ModelUnits();

  private UnitRunner(TorchRuntime runtime, List<OpLibrary> libraries, List<Map<String, OpSpec>> specs) {
    this.runtime = runtime;
    this.libraries = libraries;
    this.specs = specs;
  }

  /** Loads libtorch, then each target's library, calling {@code announce} with its path first. */
  public static UnitRunner load(Protocol.Init init, Consumer<String> announce) throws LibraryLoadException, SpecException {
    TorchRuntime runtime = TorchRuntime.get();
    List<OpLibrary> libs = new ArrayList<>();
    List<Map<String, OpSpec>> specs = new ArrayList<>();
    for (RunRequest.Target t : init.targets()) {
      announce.accept(t.library().toString());
      OpLibrary lib = OpLibrary.load(t.library());
      libs.add(lib);
      List<OpSpec> ops = t.spec() != null ? SpecReader.read(t.spec()).selectOps(init.ops())
          : SpecFile.select(lib.ops().stream().map(OpSpec::bare).toList(), init.ops());
      Map<String, OpSpec> byName = new HashMap<>();
      for (OpSpec s : ops) {
        byName.putIfAbsent(s.op(), s);
      }
      specs.add(byName);
    }
    return new UnitRunner(runtime, libs, specs);
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

  /** Runs one unit and returns its verdict; native memory it allocated is freed before returning. */
  public Verdict run(Protocol.Unit u) {
    switch (u.kind()) {
      case MODEL -> {
        return models.load(u.model());
      }
      case FORWARD -> {
        return models.forward(u.model(), u.seed());
      }
      default -> {
        // a unit about an op or a library, below
      }
    }
    OpLibrary lib = libraries.get(u.target());
    Operator op = u.op() == null ? null : operator(lib, u.op());
    OpSpec spec = u.spec() != null ? u.spec() : u.op() == null ? OpSpec.bare(String.join("|", lib.namespaces()) + "::*")
        : specs.get(u.target()).getOrDefault(u.op(), OpSpec.bare(u.op()));
    Subject subject = new Subject(lib, op, spec, u.device(), u.example(), u.seed());
    try (PointerScope scope = new PointerScope()) {
      return switch (u.kind()) {
        case EVALUATE -> evaluate(check(u), subject);
        case ACCEPTS -> accepts(subject);
        case ON_REJECTED -> onRejected(check(u), subject, u.rejected());
        case BIND -> bind(subject);
        case SYNTHESIZE -> synthesize(lib, op, u.seed());
        case MODEL, FORWARD -> throw new IllegalStateException("handled above");
      };
    }
  }

  private static Check check(Protocol.Unit u) {
    return BuiltinChecks.byId(u.check()).orElseThrow(() -> new IllegalArgumentException("unknown check " + u.check()));
  }

  private static Verdict accepts(Subject s) {
    try {
      OpCall.call(s, Materializer.bind(s.op(), s.example(), s.device(), s.seed()));
      return Verdict.passed();
    } catch (ExampleException e) {
      return rejected("cannot be materialized: " + e.getMessage());
    } catch (OpCall.KernelError e) {
      return rejected(e.getMessage());
    }
  }

  private static Verdict rejected(String raised) {
    return Verdict.failed(Finding.of("the kernel accepts the input", raised, null, new Cause.Rejection(raised)));
  }

  private static Verdict onRejected(Check check, Subject s, String realError) {
    return Evaluator.onRejected(check, s, realError);
  }

  private static Verdict synthesize(OpLibrary lib, Operator op, long seed) {
    ExampleSearch.Found f = ExampleSearch.search(lib, op, seed);
    List<Fact> facts = new ArrayList<>();
    facts.add(Fact.of("note", f.note()));
    f.example().ifPresent(e -> facts.add(Fact.of("example", Wire.write(e))));
    return Verdict.passed(facts);
  }

  private static Verdict bind(Subject s) {
    try {
      return Verdict.passed(Fact.of("description", Materializer.bind(s.op(), s.example(), s.device(), s.seed()).description()));
    } catch (ExampleException e) {
      return Verdict.failed(Finding.of("the example fits the schema", e.getMessage(), null,
          new Cause.Contract("example does not fit the schema", "")));
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
