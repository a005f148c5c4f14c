package dev.opcheck4j.run.link;

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
 * record of its own kind: a {@link Request} from the parent, a {@link Replies.Reply} from the worker, a
 * {@link Unit} of work and the {@link Answers.Answer} to it.
 *
 * <p>The parent first sends a {@link Start} with the protocol {@link #VERSION} it speaks; a worker of
 * another version answers {@link Replies.Mismatch} and exits. Otherwise the worker announces each library
 * before loading it ({@link Replies.Loading}), then replies {@link Replies.Ready} (or {@link Replies.LoadFailed}). Then a
 * {@link Run} carries one or more units, run in order: the worker announces each unit ({@link
 * Begin}) before starting it and replies {@link Replies.Answered} with its answer, so a death is attributed
 * to exactly the unit in flight, then {@link Replies.End} once the exchange is done ({@link Run#each} decides
 * which units run; the parent matches answers to units by id, never by position). A numbered worker announces only the exchange's first unit on the
 * socket and keeps each answer and the unit running in its {@link AnswerLog}, sending the answers in
 * one write at the exchange's end: an exchange, not a unit, costs the worker a write and the parent a
 * wake-up, and the parent reads what a dead or hung worker did not send from the log.
 */
public final class Protocol {
  /**
   * The version of these messages. Raise it with any change to a message's shape; {@link Start}'s
   * {@code protocol} and {@link Replies.Mismatch} keep theirs, so that two versions can tell they differ.
   */
  public static final int VERSION = 10;

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
      Replies.Answered run(long id, Unit<?> unit);

      /** Unit {@code done.id()} answered; {@code next} is the id of the unit to run next, -1 when none is left. */
      void answered(Replies.Answered done, long next);
    }

    /**
     * Runs the units in order through {@code step}: the one place that decides which units run. In a
     * guarded exchange, a guard whose kernel did not accept its example skips the units it guards (they
     * get no answer, which is how the parent learns they were skipped).
     */
    public void each(Step step) {
      int i = 0;
      while (i < units.size()) {
        Replies.Answered done = step.run(id + i, units.get(i));
        if (done == null) {
          return;
        }
        i = next(i, done.answer());
        step.answered(done, i < units.size() ? id + i : -1);
      }
    }

    /** The index of the unit to run after unit {@code index}, which gave {@code a}; {@code units.size()} when none. */
    int next(int index, Answers.Answer a) {
      int next = index + 1;
      if (guarded && units.get(index) instanceof Accepts && !(a instanceof Answers.Accepted)) {
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

  /** Asks the worker to flush its output, say {@link Replies.Bye} and exit. */
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
  public sealed interface Unit<A extends Answers.Answer>
      permits OpUnit, Synthesize, CompileReference, LoadModel, Forward, RunPackage, DumpCoverage {
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
  public sealed interface OpUnit<A extends Answers.Answer> extends Unit<A> permits CheckUnit, Accepts, Bind, RecordOutputs, SaveExample {
    /** What it runs on. */
    On on();
  }

  /** A unit whose answer is a check's verdict; the worker's own failure is an errored verdict. */
  public sealed interface CheckUnit extends OpUnit<Answers.Checked> permits Evaluate, OnRejected {
    /** The check's id. */
    String check();

    @Override
    default Class<Answers.Checked> answers() {
      return Answers.Checked.class;
    }

    @Override
    default Answers.Checked failed(String error) {
      return new Answers.Checked(Verdict.errored(error));
    }
  }

  /** A check's verdict on {@code on}. */
  public record Evaluate(String check, On on) implements CheckUnit {}

  /** The real kernel on {@code on}'s example: {@link Answers.Accepted} or {@link Answers.Rejected}. */
  public record Accepts(On on) implements OpUnit<Answers.Acceptance> {
    @Override
    public Class<Answers.Acceptance> answers() {
      return Answers.Acceptance.class;
    }

    @Override
    public Answers.Acceptance failed(String error) {
      return new Answers.Rejected(error);
    }
  }

  /** A rejection check's verdict on an input the real kernel raised {@code rejected} on. */
  public record OnRejected(String check, On on, String rejected) implements CheckUnit {}

  /** Materializes {@code on}'s example: {@link Answers.Bound} with its description, or {@link Answers.Unbindable}. */
  public record Bind(On on) implements OpUnit<Answers.Binding> {
    @Override
    public Class<Answers.Binding> answers() {
      return Answers.Binding.class;
    }

    @Override
    public Answers.Binding failed(String error) {
      return new Answers.Unbindable(error);
    }
  }

  /**
   * Materializes {@code on}'s example and saves each argument that holds tensors into {@code dir} as
   * {@code <stem>.<argument>.pt}, with libtorch's pickle writer so that {@code torch.load} reads it
   * ({@code check --repro}); the kernel is not called.
   */
  public record SaveExample(On on, Path dir, String stem) implements OpUnit<Answers.ExampleSaved> {
    @Override
    public Class<Answers.ExampleSaved> answers() {
      return Answers.ExampleSaved.class;
    }

    @Override
    public Answers.ExampleSaved failed(String error) {
      return new Answers.ExampleSaved(List.of(), error);
    }
  }

  /** Calls the op on {@code on}'s example and answers what it gave, as a value baseline records it. */
  public record RecordOutputs(On on) implements OpUnit<Answers.OutputsRecorded> {
    @Override
    public Class<Answers.OutputsRecorded> answers() {
      return Answers.OutputsRecorded.class;
    }

    @Override
    public Answers.OutputsRecorded failed(String error) {
      return new Answers.OutputsRecorded(new dev.opcheck4j.torch.ValueBaseline.Recorded(on.op(),
          on.example() == null ? "-" : on.example().ref(), on.seed(), List.of(), error));
    }
  }

  /**
   * Synthesizes an example of {@code op} from its schema that the cpu kernel accepts.
   *
   * @param target index of the op's library in {@link Init#libraries()}
   */
  public record Synthesize(int target, String op, long seed) implements Unit<Answers.Synthesized> {
    @Override
    public Class<Answers.Synthesized> answers() {
      return Answers.Synthesized.class;
    }

    @Override
    public Answers.Synthesized failed(String error) {
      return new Answers.Synthesized(new FoundExample(Optional.empty(), error));
    }
  }

  /**
   * Compiles the {@code "reference"} of one spec entry against its op's schema, before the run: {@link
   * Answers.ReferenceCompiled} says what is wrong with it, if anything.
   *
   * @param ref the entry, as an {@link OpenOp} sent it
   */
  public record CompileReference(int ref) implements Unit<Answers.ReferenceCompiled> {
    @Override
    public Class<Answers.ReferenceCompiled> answers() {
      return Answers.ReferenceCompiled.class;
    }

    @Override
    public Answers.ReferenceCompiled failed(String error) {
      return new Answers.ReferenceCompiled(List.of("compiling the reference failed in the worker: " + error));
    }
  }

  /** Loads the TorchScript model in {@code file} and keeps it for the {@link Forward} units that follow. */
  public record LoadModel(Path file) implements Unit<Answers.ModelLoaded> {
    @Override
    public Class<Answers.ModelLoaded> answers() {
      return Answers.ModelLoaded.class;
    }

    @Override
    public Answers.ModelLoaded failed(String error) {
      return new Answers.ModelLoaded(new ModelInfo(new ModelInfo.Failure(ModelInfo.Failure.Kind.OTHER, null, error, null),
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
  public record Forward(List<String> inputs, long seed, Optional<Path> expect) implements Unit<Answers.Forwarded> {
    public Forward {
      inputs = List.copyOf(inputs);
    }

    @Override
    public Class<Answers.Forwarded> answers() {
      return Answers.Forwarded.class;
    }

    @Override
    public Answers.Forwarded failed(String error) {
      return new Answers.Forwarded(new ModelInfo.Forward(null, error, null, null));
    }
  }
}
