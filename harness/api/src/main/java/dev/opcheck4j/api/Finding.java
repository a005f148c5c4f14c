package dev.opcheck4j.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a check found, typed: what was expected, what was seen, how to fix it and why it happened. Its
 * facts ({@link #facts()}) are only how it is displayed; code that decides anything reads the fields.
 *
 * @param expected what the contract asks for; never null
 * @param actual what was seen instead; never null
 * @param hint how to fix it, or null when there is nothing to say
 * @param cause the kind and value of the cause; never null
 * @param details further facts to show between "but was" and the example (keys fixed per check); never null
 * @param tensors tensors the finding is about, for reports that show or draw them; never null
 * @param heatmaps where values differ, as grids a report draws; never null
 */
public record Finding(
    String expected, String actual, String hint, Cause cause, List<Fact> details, List<TensorSummary> tensors,
    List<Heatmap> heatmaps) {

  public Finding {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(actual, "actual");
    Objects.requireNonNull(cause, "cause");
    details = List.copyOf(details);
    tensors = List.copyOf(tensors);
    heatmaps = List.copyOf(heatmaps);
  }

  /** A finding with no heatmaps. */
  public Finding(String expected, String actual, String hint, Cause cause, List<Fact> details, List<TensorSummary> tensors) {
    this(expected, actual, hint, cause, details, tensors, List.of());
  }

  /** A finding with no further facts and no tensors. */
  public static Finding of(String expected, String actual, String hint, Cause cause) {
    return new Finding(expected, actual, hint, cause, List.of(), List.of());
  }

  /** The same finding with these facts added to its details. */
  public Finding with(Fact... more) {
    List<Fact> all = new ArrayList<>(details);
    all.addAll(List.of(more));
    return new Finding(expected, actual, hint, cause, all, tensors, heatmaps);
  }

  /** The same finding with these tensors. */
  public Finding withTensors(List<TensorSummary> summaries) {
    return new Finding(expected, actual, hint, cause, details, summaries, heatmaps);
  }

  /** The same finding with these heatmaps. */
  public Finding withHeatmaps(List<Heatmap> maps) {
    return new Finding(expected, actual, hint, cause, details, tensors, maps);
  }

  /** The same finding with another actual value (e.g. the minimal example's). */
  public Finding withActual(String value) {
    return new Finding(expected, value, hint, cause, details, tensors, heatmaps);
  }

  /** The display form before any context: {@code expected}, {@code but was}, the details. The hint goes last, see {@link #hintFact()}. */
  public List<Fact> facts() {
    List<Fact> facts = new ArrayList<>();
    facts.add(new Fact("expected", expected));
    facts.add(new Fact("but was", actual));
    facts.addAll(details);
    return facts;
  }

  /** The hint as a fact, or an empty list. */
  public List<Fact> hintFact() {
    return hint == null ? List.of() : List.of(new Fact("hint", hint));
  }
}
