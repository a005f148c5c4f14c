package dev.opcheck4j.run.link;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import java.util.List;
import java.util.Optional;

/**
 * What the worker's search for an example found (the {@code Synthesized} answer's payload).
 *
 * @param example the first candidate the kernel accepted, if any
 * @param note one line: which candidate, or why none
 */
public record FoundExample(Optional<Example> example, String note) {
  /** The spec entry with the example found (or none) and the note. */
  public OpSpec applyTo(OpSpec spec) {
    return spec.synthesized(example.map(List::of).orElse(List.of()), note);
  }
}
