package dev.opcheck4j.api;

/**
 * Which input a result is about: a spec example, or an input generated from one.
 *
 * @param ref the spec example, e.g. {@code my_ops.json#ops[0].examples[1]}; null for a summary over
 *     all generated inputs of an op and device
 * @param generated whether the input was generated (from {@code ref} when it is not null)
 * @param tryIndex which try produced it (0-based), or null for a spec example or a summary
 * @param seed the run's seed that reproduces it, or null for a spec example
 * @param description the input as text (dtypes, shapes, a few values), or null when not rendered
 */
public record ExampleRef(String ref, boolean generated, Integer tryIndex, Long seed, String description) {

  /** A spec example, as written by its author. */
  public static ExampleRef spec(String ref) {
    return new ExampleRef(ref, false, null, null, null);
  }
}
