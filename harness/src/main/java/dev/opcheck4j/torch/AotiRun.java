package dev.opcheck4j.torch;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Heatmap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a worker saw loading an AOTInductor package with libtorch's {@code AOTIModelPackageLoader} and, given
 * inputs, running it once, as data.
 *
 * @param failure why it did not load or run (or its inputs or expected outputs could not be used), or null
 * @param metadata the loader's metadata ({@code AOTI_DEVICE_KEY}, ...); empty when it did not load
 * @param callSpec the call spec, the pytree specs of its inputs and of its outputs (JSON); empty when it did
 *     not load
 * @param inputs how many tensors its call spec takes (-1 when it did not load)
 * @param outputs each output's dtype and shape ({@code float32[4, 3]}); empty when it did not run
 * @param comparison its outputs beside the expected ones, or null when none were given or it did not run
 * @param changedInputs the inputs (0-based) whose values the run changed
 */
public record AotiRun(Failure failure, Map<String, String> metadata, List<String> callSpec, int inputs,
    List<String> outputs, Comparison comparison, List<Integer> changedInputs) {
  public AotiRun {
    metadata = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    callSpec = List.copyOf(callSpec);
    outputs = List.copyOf(outputs);
    changedInputs = List.copyOf(changedInputs);
  }

  /** A run that stopped at {@code stage}, with what was known by then. */
  public static AotiRun failed(Stage stage, String message) {
    return new AotiRun(new Failure(stage, message), Map.of(), List.of(), -1, List.of(), null, List.of());
  }

  /** Where a run stopped. */
  public enum Stage {
    /** the loader refused the package (libtorch's first line) */
    LOAD,
    /** the inputs do not fit its call spec, or cannot be read */
    INPUTS,
    /** running it raised (libtorch's first line) */
    RUN,
    /** the expected outputs' file holds nothing to compare with */
    EXPECTED,
    /** the worker's runtime cannot load packages (its presets map no AOTIModelPackageLoader) */
    UNSUPPORTED
  }

  /**
   * Why a run stopped.
   *
   * @param stage where
   * @param message one line: libtorch's first line for {@link Stage#LOAD} and {@link Stage#RUN}, as it said it
   */
  public record Failure(Stage stage, String message) {}

  /**
   * The outputs beside the expected ones: equal when {@code butWas} is null.
   *
   * @param compared how many tensors were compared
   * @param butWas how the first differing output differs (one line), or null
   * @param details max abs and rel error, how many elements differ, the first difference
   * @param heatmaps where the values differ, for the HTML report
   */
  public record Comparison(int compared, String butWas, List<Fact> details, List<Heatmap> heatmaps) {
    public Comparison {
      details = List.copyOf(details);
      heatmaps = List.copyOf(heatmaps);
    }
  }
}
