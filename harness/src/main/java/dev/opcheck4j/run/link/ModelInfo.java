package dev.opcheck4j.run.link;

import java.util.List;
import java.util.Optional;

/**
 * What a worker found in a TorchScript model ({@code ./opcheck model}), as data the parent prints.
 *
 * @param failure why it did not load, or null when it did
 * @param calls the custom ops its code calls, first call site first (empty when it did not load)
 * @param parameters forward's parameters, {@code name: Type} (empty when it did not load)
 */
public record ModelInfo(Failure failure, List<Call> calls, List<String> parameters) {
  public ModelInfo {
    calls = List.copyOf(calls);
    parameters = List.copyOf(parameters);
  }

  /**
   * Why {@code torch::jit::load} refused the model.
   *
   * @param kind an op no library registers, a call that does not fit the op's schema, or other
   * @param op the op the failure is about, or null
   * @param message the failure in one line
   * @param callSite the code line that calls {@code op}, or null
   */
  public record Failure(Kind kind, String op, String message, String callSite) {
    /** The kinds of {@code dev.opcheck4j.torch.ScriptModels.LoadFailure}. */
    public enum Kind {
      UNKNOWN_OP,
      SCHEMA_MISMATCH,
      OTHER
    }
  }

  /**
   * One custom op the model calls.
   *
   * @param op qualified name, {@code ns::name}
   * @param where the method whose graph calls it first ({@code Warp.forward})
   * @param expects the schema the call site is bound to, if any
   * @param registered the schema registered now under the name of the overload the call site is bound to, if any
   */
  public record Call(String op, String where, Optional<String> expects, Optional<String> registered) {
    /**
     * The overload the call site is bound to ({@code ns::op.overload}, from its schema), or {@code op}: a saved
     * call names no overload, and the importer binds it by its arguments.
     */
    public String bound() {
      return expects.filter(s -> s.indexOf('(') > 0).map(s -> s.substring(0, s.indexOf('('))).orElse(op);
    }
  }

  /**
   * What one {@code forward} call gave: exactly one of its fields is set.
   *
   * @param usage the inputs do not fit forward (count or syntax), one line
   * @param raised forward raised this (first line)
   * @param outputs each output, {@code label} and its dtype and shape (or kind)
   * @param expected how the outputs compare with {@code --expect}'s file, or null without one
   */
  public record Forward(String usage, String raised, List<Output> outputs, Expectation expected) {
    public Forward {
      outputs = outputs == null ? null : List.copyOf(outputs);
    }
  }

  /**
   * One output of forward.
   *
   * @param label {@code output}, {@code output 0}, {@code output[1]}, ...
   * @param value {@code float32[8, 4]}, or the kind of a non-tensor value
   */
  public record Output(String label, String value) {}

  /**
   * forward's output beside a file saved by {@code torch.save}: exactly one of {@code unusable},
   * {@code mismatch} is set, or neither when every tensor is equal within tolerance.
   *
   * @param unusable why the file holds nothing to compare with (not a tensor, unreadable), one line
   * @param compared how many tensors were compared
   * @param mismatch how the first differing tensor differs, or null
   */
  public record Expectation(String unusable, int compared, Difference mismatch) {}

  /**
   * How an output differs from the expected one.
   *
   * @param butWas one line: what differs
   * @param details max abs and rel error, how many elements differ, the first difference
   * @param heatmaps where the values differ, for the HTML report
   */
  public record Difference(String butWas, List<dev.opcheck4j.api.Fact> details, List<dev.opcheck4j.api.Heatmap> heatmaps) {
    public Difference {
      details = List.copyOf(details);
      heatmaps = List.copyOf(heatmaps);
    }

    public Difference(String butWas, List<dev.opcheck4j.api.Fact> details) {
      this(butWas, details, List.of());
    }
  }
}
