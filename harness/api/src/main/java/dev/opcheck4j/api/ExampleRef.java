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
 * @param tries for a summary over generated inputs on which the check ran fewer than the run's tries (the op
 *     used up its worker deaths, generation found no new ground, or a costly check's share): how many tries
 *     it ran on; null when it ran on every try (or for any other input)
 * @param stop why the check ran on fewer than the run's tries by design (generation stopped finding new
 *     ground, or the check's share of the tries), which is no loss; null when it ran on every try, or lost
 *     tries to the op's deaths
 */
public record ExampleRef(String ref, boolean generated, Integer tryIndex, Long seed, String description,
    Integer tries, String stop) {

  /** An input, or a summary over generated inputs (stopped early by deaths when {@code tries} is not null). */
  public ExampleRef(String ref, boolean generated, Integer tryIndex, Long seed, String description, Integer tries) {
    this(ref, generated, tryIndex, seed, description, tries, null);
  }

  /** An input, or a summary over generated inputs that made every try. */
  public ExampleRef(String ref, boolean generated, Integer tryIndex, Long seed, String description) {
    this(ref, generated, tryIndex, seed, description, null);
  }

  /** A spec example, as written by its author. */
  public static ExampleRef spec(String ref) {
    return new ExampleRef(ref, false, null, null, null);
  }
}
