package dev.opcheck4j.api;

import java.util.List;
import java.util.Objects;

/**
 * A grid of numbers a report draws as a heatmap: |difference| between an output and the value it should
 * have had, or one of the Jacobians gradcheck compared. Small by construction (at most
 * {@link #MAX_SIDE} × {@link #MAX_SIDE} cells, downsampled with max).
 *
 * @param title what the grid shows, e.g. {@code |difference| of output 0}
 * @param group grids of one group share one colour scale (e.g. a Jacobian pair and their difference)
 * @param rows number of rows
 * @param cols number of columns
 * @param cells {@code rows * cols} finite values, row-major; a non-finite cell holds 0 and is listed in {@code nonFinite}
 * @param marked indices of cells that hold an element that differs beyond tolerance
 * @param nonFinite indices of cells whose value is NaN or infinite
 * @param note how the grid was made from the tensor (dimensions summarised, downsampling), or empty
 */
public record Heatmap(String title, String group, int rows, int cols, List<Double> cells, List<Integer> marked,
    List<Integer> nonFinite, String note) {
  /** The largest number of rows or columns a heatmap has. */
  public static final int MAX_SIDE = 64;

  public Heatmap {
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(note, "note");
    cells = List.copyOf(cells);
    marked = List.copyOf(marked);
    nonFinite = List.copyOf(nonFinite);
    if (rows < 1 || cols < 1 || rows > MAX_SIDE || cols > MAX_SIDE || cells.size() != rows * cols) {
      throw new IllegalArgumentException("a heatmap of " + rows + "x" + cols + " with " + cells.size() + " cells");
    }
  }
}
