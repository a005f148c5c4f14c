package dev.opcheck4j.run.worker;

import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The messages between the parent and a worker, one {@link Wire} line each, over a Unix-domain
 * socket of their own (a kernel writing to stdout or stderr cannot reach it). Each message is a
 * record of its own kind: a {@link Request} from the parent, a {@link Reply} from the worker, a
 * {@link Unit} of work and the {@link Answer} to it.
 *
 * <p>The parent first sends a {@link Start} with the protocol {@link #VERSION} it speaks; a worker of
 * another version answers {@link Mismatch} and exits. Otherwise the worker announces each library
 * before loading it ({@link Loading}), then replies {@link Ready} (or {@link LoadFailed}). Then a
 * {@link Run} carries one or more units, run in order: the worker announces each unit ({@link
 * Begin}) before starting it and replies {@link Answered} with its answer, so a death is attributed
 * to exactly the unit in flight, then {@link End} once the exchange is done ({@link Run#each} decides
 * which units run; the parent matches answers to units by id, never by position). A numbered worker announces only the exchange's first unit on the
 * socket and keeps each answer and the unit running in its {@link AnswerLog}, sending the answers in
 * one write at the exchange's end: an exchange, not a unit, costs the worker a write and the parent a
 * wake-up, and the parent reads what a dead or hung worker did not send from the log.
 */
public final class Protocol {
  /**
   * The version of these messages. Raise it with any change to a message's shape; {@link Start}'s
   * {@code protocol} and {@link Mismatch} keep theirs, so that two versions can tell they differ.
   */
  public static final int VERSION = 9;

  private Protocol() {}

  /**
   * The libraries a worker loads. A worker reads no spec file: the parent sends each spec entry its
   * units name once, in an {@link OpenOp}.
   *
   * @param libraries one per target of the run, each a resolved path
   * @param baseline the run's baseline file ({@code check --baseline}), whose recorded outputs the worker
   *     reads; null when the run has none
   * @param workers how many workers of the run share the machine's cores (0 when not known)
   * @param runtime the jars of the libtorch runtime the worker starts on, in place of the parent's presets
   *     ({@code LibtorchRuntime.classPath}); empty: the parent's own
   */
  public record Init(List<Path> libraries, Path baseline, int workers, List<Path> runtime) {
    public Init {
      libraries = List.copyOf(libraries);
      runtime = List.copyOf(runtime);
    }

    /** A run on the parent's runtime. */
    public Init(List<Path> libraries, Path baseline, int workers) {
      this(libraries, baseline, workers, List.of());
    }

    /** A run without a baseline, its number of workers not known. */
    public Init(List<Path> libraries) {
      this(libraries, null, 0);
    }
  }

  /** Parent to worker. */
  public sealed interface Request permits Start, Run, Stop {}

  /**
   * The first message: the protocol the parent speaks and the libraries to load.
   *
   * @param protocol the parent's {@link #VERSION}
   */
  public record Start(int protocol, Init init) implements Request {}

  /**
   * Units to run, in order.
   *
   * @param id sequence number of the first unit (unit {@code i} is {@code id + i}), echoed by the worker
   * @param opens the spec entries the units name that this worker was not sent before, each once
   * @param guarded whether each {@link Accepts} unit guards the units after it, up to the next
   *     {@link Accepts}: when the kernel rejects its example those units are not run (nor answered).
   *     Several generated inputs, each with the checks on it, go in one exchange so.
   */
  public record Run(long id, List<OpenOp> opens, List<Unit<?>> units, boolean guarded) implements Request {
    public Run {
      opens = List.copyOf(opens);
    }

    /** What runs the units of an exchange, one at a time. */
    public interface Step {
      /** Runs unit {@code id} and returns its answer; null when it ended the exchange (the kernels died). */
      Answered run(long id, Unit<?> unit);

      /** Unit {@code done.id()} answered; {@code next} is the id of the unit to run next, -1 when none is left. */
      void answered(Answered done, long next);
    }

    /**
     * Runs the units in order through {@code step}: the one place that decides which units run. In a
     * guarded exchange, a guard whose kernel did not accept its example skips the units it guards (they
     * get no answer, which is how the parent learns they were skipped).
     */
    public void each(Step step) {
      int i = 0;
      while (i < units.size()) {
        Answered done = step.run(id + i, units.get(i));
        if (done == null) {
          return;
        }
        i = next(i, done.answer());
        step.answered(done, i < units.size() ? id + i : -1);
      }
    }

    /** The index of the unit to run after unit {@code index}, which gave {@code a}; {@code units.size()} when none. */
    private int next(int index, Answer a) {
      int next = index + 1;
      if (guarded && units.get(index) instanceof Accepts && !(a instanceof Accepted)) {
        while (next < units.size() && !(units.get(next) instanceof Accepts)) {
          next++;
        }
      }
      return next;
    }
  }

  /**
   * One spec entry, sent once to each worker whose units name it: the entry whole (tolerances, skips,
   * reference, examples, settings), its values with the file:line:column they were written at.
   *
   * @param ref the parent's number for the entry, which units name ({@link On#ref()})
   * @param target index of the entry's library in {@link Init#libraries()}
   * @param entry the entry as the parent read it (or changed it: synthesized examples)
   */
  public record OpenOp(int ref, int target, OpSpec entry) {}

  /** Asks the worker to flush its output, say {@link Bye} and exit. */
  public record Stop() implements Request {}

  /**
   * The worker's side of the handshake: the parent's first line as a {@link Start} of this version,
   * or empty when it is of another version (a line of another version may not even decode).
   */
  public static Optional<Start> start(String firstLine) {
    try {
      Request r = Wire.read(firstLine, Request.class);
      return r instanceof Start s && s.protocol() == VERSION ? Optional.of(s) : Optional.empty();
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * What an op's unit runs on.
   *
   * @param target index of the target (library) in {@link Init#libraries()}
   * @param op qualified op name; null for a library-wide check
   * @param device device, or null for checks that run on none
   * @param example the example as spec data, or null
   * @param seed the run's seed
   * @param ref the spec entry the unit belongs to, as an {@link OpenOp} sent it; {@link #NO_REF} for a
   *     library-wide check. A spec may hold several entries for one op, each its own contract: the op's
   *     name does not say which.
   */
  public record On(int target, String op, Device device, Example example, long seed, int ref)
      implements Wire.Shared {
    /** About no entry (a library-wide check). */
    public static final int NO_REF = -1;
  }

  /**
   * One unit of work, answered with an {@code A}.
   *
   * @param <A> the kind of answer
   */
  public sealed interface Unit<A extends Answer> permits OpUnit, Synthesize, CompileReference, LoadModel, Forward {
    /** The class of this unit's answers. */
    Class<A> answers();

    /** The answer when the worker's own code (not the kernel) threw {@code error} running this unit. */
    A failed(String error);
  }

  /**
   * A unit about an op, or with no op about a library.
   *
   * @param <A> the kind of answer
   */
  public sealed interface OpUnit<A extends Answer> extends Unit<A> permits CheckUnit, Accepts, Bind, RecordOutputs, SaveExample {
    /** What it runs on. */
    On on();
  }

  /** A unit whose answer is a check's verdict; the worker's own failure is an errored verdict. */
  public sealed interface CheckUnit extends OpUnit<Checked> permits Evaluate, OnRejected {
    /** The check's id. */
    String check();

    @Override
    default Class<Checked> answers() {
      return Checked.class;
    }

    @Override
    default Checked failed(String error) {
      return new Checked(Verdict.errored(error));
    }
  }

  /** A check's verdict on {@code on}. */
  public record Evaluate(String check, On on) implements CheckUnit {}

  /** The real kernel on {@code on}'s example: {@link Accepted} or {@link Rejected}. */
  public record Accepts(On on) implements OpUnit<Acceptance> {
    @Override
    public Class<Acceptance> answers() {
      return Acceptance.class;
    }

    @Override
    public Acceptance failed(String error) {
      return new Rejected(error);
    }
  }

  /** A rejection check's verdict on an input the real kernel raised {@code rejected} on. */
  public record OnRejected(String check, On on, String rejected) implements CheckUnit {}

  /** Materializes {@code on}'s example: {@link Bound} with its description, or {@link Unbindable}. */
  public record Bind(On on) implements OpUnit<Binding> {
    @Override
    public Class<Binding> answers() {
      return Binding.class;
    }

    @Override
    public Binding failed(String error) {
      return new Unbindable(error);
    }
  }

  /**
   * Materializes {@code on}'s example and saves each argument that holds tensors into {@code dir} as
   * {@code <stem>.<argument>.pt}, with libtorch's pickle writer so that {@code torch.load} reads it
   * ({@code check --repro}); the kernel is not called.
   */
  public record SaveExample(On on, Path dir, String stem) implements OpUnit<ExampleSaved> {
    @Override
    public Class<ExampleSaved> answers() {
      return ExampleSaved.class;
    }

    @Override
    public ExampleSaved failed(String error) {
      return new ExampleSaved(List.of(), error);
    }
  }

  /** Calls the op on {@code on}'s example and answers what it gave, as a value baseline records it. */
  public record RecordOutputs(On on) implements OpUnit<OutputsRecorded> {
    @Override
    public Class<OutputsRecorded> answers() {
      return OutputsRecorded.class;
    }

    @Override
    public OutputsRecorded failed(String error) {
      return new OutputsRecorded(new dev.opcheck4j.torch.ValueBaseline.Recorded(on.op(),
          on.example() == null ? "-" : on.example().ref(), on.seed(), List.of(), error));
    }
  }

  /**
   * Synthesizes an example of {@code op} from its schema that the cpu kernel accepts.
   *
   * @param target index of the op's library in {@link Init#targets()}
   */
  public record Synthesize(int target, String op, long seed) implements Unit<Synthesized> {
    @Override
    public Class<Synthesized> answers() {
      return Synthesized.class;
    }

    @Override
    public Synthesized failed(String error) {
      return new Synthesized(new ExampleSearch.Found(Optional.empty(), error));
    }
  }

  /**
   * Compiles the {@code "reference"} of one spec entry against its op's schema, before the run: {@link
   * ReferenceCompiled} says what is wrong with it, if anything.
   *
   * @param ref the entry, as an {@link OpenOp} sent it
   */
  public record CompileReference(int ref) implements Unit<ReferenceCompiled> {
    @Override
    public Class<ReferenceCompiled> answers() {
      return ReferenceCompiled.class;
    }

    @Override
    public ReferenceCompiled failed(String error) {
      return new ReferenceCompiled(List.of("compiling the reference failed in the worker: " + error));
    }
  }

  /** Loads the TorchScript model in {@code file} and keeps it for the {@link Forward} units that follow. */
  public record LoadModel(Path file) implements Unit<ModelLoaded> {
    @Override
    public Class<ModelLoaded> answers() {
      return ModelLoaded.class;
    }

    @Override
    public ModelLoaded failed(String error) {
      return new ModelLoaded(new ModelInfo(new ModelInfo.Failure(ModelInfo.Failure.Kind.OTHER, null, error, null),
          List.of(), List.of()));
    }
  }

  /**
   * Runs {@code forward} of the model the last {@link LoadModel} loaded.
   *
   * @param inputs forward's inputs as typed on the command line ({@code float32[16,16]}, {@code int:8}, ...)
   * @param seed seeds the generator the tensor inputs' values come from
   * @param expect a file saved by {@code torch.save} that forward's output is compared with, when present
   */
  public record Forward(List<String> inputs, long seed, Optional<Path> expect) implements Unit<Forwarded> {
    public Forward {
      inputs = List.copyOf(inputs);
    }

    @Override
    public Class<Forwarded> answers() {
      return Forwarded.class;
    }

    @Override
    public Forwarded failed(String error) {
      return new Forwarded(new ModelInfo.Forward(null, error, null, null));
    }
  }

  /** What a unit gave. */
  public sealed interface Answer
      permits Checked, Acceptance, Binding, Synthesized, ReferenceCompiled, OutputsRecorded, ModelLoaded, Forwarded,
      ExampleSaved {}

  /**
   * A {@link SaveExample}'s arguments, in schema order, or why they could not be saved.
   *
   * @param args one per schema argument (defaults filled in); empty when {@code error} is set
   * @param error why the example could not be materialized or saved, or null
   */
  public record ExampleSaved(List<SavedArgument> args, String error) implements Answer {
    public ExampleSaved {
      args = List.copyOf(args);
    }
  }

  /**
   * One argument of a saved example.
   *
   * @param name the schema argument's name
   * @param kwargOnly whether it comes after {@code *} in the schema
   * @param file the file (a name in the example's directory) holding it when it holds tensors, else null
   * @param literal the value as a Python literal when it holds no tensor, else null
   * @param tensors what each tensor in it is, in order (one for a tensor, one per element for a list)
   */
  public record SavedArgument(String name, boolean kwargOnly, String file, String literal, List<TensorMeta> tensors) {
    public SavedArgument {
      tensors = List.copyOf(tensors);
    }
  }

  /**
   * A saved tensor's metadata, which the script checks after loading it (and sets {@code requires_grad} from).
   *
   * @param dtype PyTorch's name, e.g. {@code float32}
   */
  public record TensorMeta(String dtype, List<Long> sizes, List<Long> strides, long storageOffset,
      boolean requiresGrad) {
    public TensorMeta {
      sizes = List.copyOf(sizes);
      strides = List.copyOf(strides);
    }
  }

  /** A check's verdict ({@link Evaluate}, {@link OnRejected}). */
  public record Checked(Verdict verdict) implements Answer {}

  /** What the real kernel did with an example ({@link Accepts}). */
  public sealed interface Acceptance extends Answer permits Accepted, Rejected {}

  /** The kernel ran on the example. */
  public record Accepted() implements Acceptance {}

  /**
   * The kernel raised on the example, or it could not be made.
   *
   * @param firstLine the first line of what it raised, or why the example cannot be materialized
   */
  public record Rejected(String firstLine) implements Acceptance {}

  /** Whether an example could be materialized ({@link Bind}). */
  public sealed interface Binding extends Answer permits Bound, Unbindable {}

  /**
   * The example was materialized.
   *
   * @param description its inputs as text
   */
  public record Bound(String description) implements Binding {}

  /**
   * The example cannot be materialized.
   *
   * @param why why it does not fit the op's schema or the machine
   */
  public record Unbindable(String why) implements Binding {}

  /** What the search for an example found ({@link Synthesize}). */
  public record Synthesized(ExampleSearch.Found found) implements Answer {}

  /**
   * What is wrong with a spec's reference ({@link CompileReference}).
   *
   * @param problems one located line each ({@code file:line:column: ...}); empty when it compiles and fits the op
   */
  public record ReferenceCompiled(List<String> problems) implements Answer {
    public ReferenceCompiled {
      problems = List.copyOf(problems);
    }
  }

  /** What the op gave on an example ({@link RecordOutputs}). */
  public record OutputsRecorded(dev.opcheck4j.torch.ValueBaseline.Recorded recorded) implements Answer {}

  /** The model's call sites and forward parameters, or why it did not load ({@link LoadModel}). */
  public record ModelLoaded(ModelInfo info) implements Answer {}

  /** What forward gave ({@link Forward}). */
  public record Forwarded(ModelInfo.Forward forward) implements Answer {}

  /** Worker to parent. */
  public sealed interface Reply permits Mismatch, Loading, Ready, LoadFailed, Begin, Answered, End, Bye {}

  /**
   * The worker speaks another version of the protocol than {@link Start} asked for; it exits.
   *
   * @param protocol the worker's {@link #VERSION}
   */
  public record Mismatch(int protocol) implements Reply {
    /** The parent's one line about it, {@code parent} being the version it asked for. */
    public String describe(int parent) {
      return "the worker speaks opcheck4j worker protocol " + protocol + " and this harness " + parent
          + ": its classes come from another build of opcheck4j than this process's (rebuild, or check the class path)";
    }
  }

  /** The worker starts loading {@code library} (its path). */
  public record Loading(String library) implements Reply {}

  /** The worker has loaded libtorch and every library. */
  public record Ready(WorkerInfo info) implements Reply {}

  /** A library could not be loaded; {@code message} names it. */
  public record LoadFailed(String message) implements Reply {}

  /** Unit {@code id} starts. */
  public record Begin(long id) implements Reply {}

  /**
   * Unit {@code id} finished.
   *
   * @param micros the unit's own time in microseconds
   */
  public record Answered(long id, Answer answer, long micros) implements Reply {}

  /**
   * The exchange whose first unit is {@code id} ended: every unit of it that ran was answered, and the
   * ones without an answer were skipped by their guard.
   */
  public record End(long id) implements Reply {}

  /** Asked to exit, with its output flushed. */
  public record Bye() implements Reply {}
}
