package dev.opcheck4j.spec;

import java.util.List;
import java.util.Map;

/**
 * One example call: positional and keyword argument values, as written in the spec.
 *
 * @param ref where the example is, e.g. {@code spec.json#ops[2].examples[1]}
 * @param args positional values
 * @param kwargs keyword values, by argument name
 * @param salt mixed into the seed its tensor values are drawn from (0 for a spec's own examples;
 *     generated variants draw theirs)
 * @param location where the spec writes it, {@code file:line:column}; empty for examples the harness made
 */
public record Example(String ref, List<SpecValue> args, Map<String, SpecValue> kwargs, long salt, String location) {
  public Example {
    args = List.copyOf(args);
    kwargs = Map.copyOf(kwargs);
  }

  public Example(String ref, List<SpecValue> args, Map<String, SpecValue> kwargs, long salt) {
    this(ref, args, kwargs, salt, "");
  }

  public Example(String ref, List<SpecValue> args, Map<String, SpecValue> kwargs) {
    this(ref, args, kwargs, 0L);
  }
}
