package dev.opcheck4j.run.link;

import dev.opcheck4j.checks.Verdict;
import java.util.List;

/**
 * What the worker answers to each unit of a {@link Protocol.Run}: one record per kind of answer, named by
 * the unit (its type parameter), so that a unit's caller gets the answer's own type.
 */
public final class Answers {
  private Answers() {}

  /** What a unit gave. */
  public sealed interface Answer
      permits Checked, Acceptance, Binding, Synthesized, ReferenceCompiled, OutputsRecorded, ModelLoaded, Forwarded,
      ExampleSaved, PackageRan, CoverageDumped {}

  /**
   * A {@link Protocol.SaveExample}'s arguments, in schema order, or why they could not be saved.
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

  /** A check's verdict ({@link Protocol.Evaluate}, {@link Protocol.OnRejected}). */
  public record Checked(Verdict verdict) implements Answer {}

  /** What the real kernel did with an example ({@link Protocol.Accepts}). */
  public sealed interface Acceptance extends Answer permits Accepted, Rejected {}

  /**
   * The kernel ran on the example.
   *
   * @param arcs where the library was built with coverage, the kernel arcs (gcov's counters, numbered across the
   *     worker's libraries) the call reached that no call of its worker had reached before; empty otherwise
   */
  public record Accepted(List<Integer> arcs) implements Acceptance {
    public Accepted {
      arcs = List.copyOf(arcs);
    }

    /** Accepted by a library without coverage: no arcs. */
    public Accepted() {
      this(List.of());
    }
  }

  /**
   * The kernel raised on the example, or it could not be made.
   *
   * @param firstLine the first line of what it raised, or why the example cannot be materialized
   */
  public record Rejected(String firstLine) implements Acceptance {}

  /** Whether an example could be materialized ({@link Protocol.Bind}). */
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

  /** What the search for an example found ({@link Protocol.Synthesize}). */
  public record Synthesized(FoundExample found) implements Answer {}

  /**
   * What is wrong with a spec's reference ({@link Protocol.CompileReference}).
   *
   * @param problems one located line each ({@code file:line:column: ...}); empty when it compiles and fits the op
   */
  public record ReferenceCompiled(List<String> problems) implements Answer {
    public ReferenceCompiled {
      problems = List.copyOf(problems);
    }
  }

  /** What the op gave on an example ({@link Protocol.RecordOutputs}). */
  public record OutputsRecorded(dev.opcheck4j.torch.ValueBaseline.Recorded recorded) implements Answer {}

  /** The model's call sites and forward parameters, or why it did not load ({@link Protocol.LoadModel}). */
  public record ModelLoaded(ModelInfo info) implements Answer {}

  /** What forward gave ({@link Protocol.Forward}). */
  public record Forwarded(ModelInfo.Forward forward) implements Answer {}

  /** What loading (and running) an AOTInductor package gave ({@link RunPackage}). */
  public record PackageRan(dev.opcheck4j.torch.AotiRun run) implements Answer {}

  /**
   * What a {@link Protocol.DumpCoverage} wrote.
   *
   * @param worker the process id of the worker whose counts they are (each dump holds its counts since it started)
   * @param error why nothing was written, or null
   */
  public record CoverageDumped(long worker, String error) implements Answer {}
}
