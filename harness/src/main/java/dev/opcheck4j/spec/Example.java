package dev.opcheck4j.spec;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One example call: positional and keyword argument values, as written in the spec.
 *
 * @param ref where the example is, e.g. {@code spec.json#ops[2].examples[1]}
 * @param args positional values
 * @param kwargs keyword values, by argument name
 * @param salt mixed into the seed its tensor values are drawn from (0 for a spec's own examples;
 *     generated variants draw theirs)
 * @param location where the spec writes it, {@code file:line:column}; empty for examples the harness made
 * @param expect the file saved by {@code torch.save} that holds this example's expected outputs
 *     ({@code "expect"}); never carried over to inputs generated from the example
 */
public record Example(String ref, List<SpecValue> args, Map<String, SpecValue> kwargs, long salt, String location,
    Optional<Expect> expect) {
  public Example {
    args = List.copyOf(args);
    kwargs = Map.copyOf(kwargs);
  }

  /**
   * An example's {@code "expect"}.
   *
   * @param file the absolute path of the tensor file
   * @param location where the spec writes it, {@code file:line:column}
   */
  public record Expect(Path file, String location) {}

  public Example(String ref, List<SpecValue> args, Map<String, SpecValue> kwargs, long salt, String location) {
    this(ref, args, kwargs, salt, location, Optional.empty());
  }

  public Example(String ref, List<SpecValue> args, Map<String, SpecValue> kwargs, long salt) {
    this(ref, args, kwargs, salt, "");
  }

  public Example(String ref, List<SpecValue> args, Map<String, SpecValue> kwargs) {
    this(ref, args, kwargs, 0L);
  }
}
