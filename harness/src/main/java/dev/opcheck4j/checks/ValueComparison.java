package dev.opcheck4j.checks;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.generate.TensorSpec;
import dev.opcheck4j.generate.TensorText;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.api.Heatmap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.Tensor;

/**
 * Whether a tensor equals the one it should, within a tolerance ({@code |a - e| <= atol + rtol * |e|},
 * NaN where both are NaN counting as equal, as {@code torch.testing.assert_close(equal_nan=True)}), and
 * how it differs when it does not: the facts every value check shows alike.
 */
public final class ValueComparison {
  private ValueComparison() {}

  /** Default tolerance per dtype, as torch.testing.assert_close uses. */
  public static OpSpec.Tolerance defaultTolerance(org.bytedeco.pytorch.global.torch.ScalarType dtype) {
    return switch (dtype.intern()) {
      case Double -> new OpSpec.Tolerance(1e-7, 1e-7);
      case Half -> new OpSpec.Tolerance(1e-5, 1e-3);
      case BFloat16 -> new OpSpec.Tolerance(1e-5, 1.6e-2);
      case Float -> new OpSpec.Tolerance(1e-5, 1.3e-6);
      default -> new OpSpec.Tolerance(0, 0);
    };
  }

  /**
   * How {@code actual} differs from {@code expected}.
   *
   * @param cause what differs, typed: values ({@link Cause.ValueMismatch}) or metadata
   * @param butWas the one-line "but was"
   * @param details max abs and rel error, how many elements differ, the first differing index with both values
   */
  public record Mismatch(Cause cause, String butWas, List<Fact> details, List<Heatmap> heatmaps) {
    public Mismatch {
      details = List.copyOf(details);
      heatmaps = List.copyOf(heatmaps);
    }

    public Mismatch(Cause cause, String butWas, List<Fact> details) {
      this(cause, butWas, details, List.of());
    }

    /** The finding, with the details after its "but was", and the heatmap of where values differ. */
    public Finding finding(String expected, String hint) {
      return Finding.of(expected, butWas, hint, cause).with(details.toArray(Fact[]::new)).withHeatmaps(heatmaps);
    }
  }

  /**
   * Compares {@code actual} (the op's {@code label}) with {@code expected} under {@code tolerance},
   * or the per-dtype default of {@code expected}'s dtype when it is empty.
   */
  public static Optional<Mismatch> compare(String label, Tensor expected, Tensor actual,
      Optional<OpSpec.Tolerance> tolerance) {
    long[] es = expected.sizes().vec().get();
    long[] as = actual.sizes().vec().get();
    if (!Arrays.equals(es, as)) {
      return Optional.of(new Mismatch(new Cause.MetadataMismatch(label, "sizes"),
          label + " has sizes " + Arrays.toString(as) + " instead of " + Arrays.toString(es), List.of()));
    }
    if (expected.scalar_type().intern() != actual.scalar_type().intern()) {
      return Optional.of(new Mismatch(new Cause.MetadataMismatch(label, "dtype"),
          label + " is " + TensorSpec.dtypeName(actual.scalar_type()) + " instead of "
              + TensorSpec.dtypeName(expected.scalar_type()), List.of()));
    }
    OpSpec.Tolerance tol = tolerance.orElse(defaultTolerance(expected.scalar_type()));
    return compare(label, es, TensorCopies.doubles(expected), TensorCopies.doubles(actual), tol);
  }

  /** Compares the elements {@code a} of a tensor of sizes {@code shape} with {@code e}, of the same count. */
  public static Optional<Mismatch> compare(String label, long[] shape, double[] e, double[] a, OpSpec.Tolerance tol) {
    int differing = 0;
    int first = -1;
    double maxAbs = 0;
    double maxRel = 0;
    for (int i = 0; i < e.length; i++) {
      boolean bothNaN = Double.isNaN(e[i]) && Double.isNaN(a[i]);
      double abs = Math.abs(a[i] - e[i]);
      boolean close = bothNaN || e[i] == a[i] || abs <= tol.atol() + tol.rtol() * Math.abs(e[i]);
      if (!close) {
        differing++;
        if (first < 0) {
          first = i;
        }
        double d = Double.isNaN(abs) ? Double.POSITIVE_INFINITY : abs;
        maxAbs = Math.max(maxAbs, d);
        maxRel = Math.max(maxRel, e[i] == 0 ? Double.POSITIVE_INFINITY : d / Math.abs(e[i]));
      }
    }
    if (differing == 0) {
      return Optional.empty();
    }
    String at = TensorText.index(shape, first);
    return Optional.of(new Mismatch(new Cause.ValueMismatch(label),
        label + ": " + differing + " of " + e.length + " elements differ beyond atol " + tol.atol() + ", rtol " + tol.rtol(),
        List.of(Fact.of("max abs error", maxAbs),
        Fact.of("max rel error", maxRel),
        Fact.of("differing", differing + " of " + e.length),
        Fact.of("first difference", at + ": " + a[first] + " instead of " + e[first])),
        List.of(differenceMap(label, shape, e, a, tol))));
  }

  /**
   * |a - e| over the first two dimensions of {@code shape} (a 1-d tensor is one row; later dimensions
   * are summarised by max), downsampled by max to at most {@link Heatmap#MAX_SIDE} cells a side; a cell
   * is marked when it holds an element that differs beyond {@code tol}.
   */
  public static Heatmap differenceMap(String label, long[] shape, double[] e, double[] a, OpSpec.Tolerance tol) {
    long rowsOf = shape.length >= 2 ? shape[0] : 1;
    long colsOf = shape.length >= 2 ? shape[1] : shape.length == 1 ? shape[0] : 1;
    long inner = 1;
    for (int d = 2; d < shape.length; d++) {
      inner *= shape[d];
    }
    int rows = (int) Math.max(1, Math.min(rowsOf, Heatmap.MAX_SIDE));
    int cols = (int) Math.max(1, Math.min(colsOf, Heatmap.MAX_SIDE));
    double[] cells = new double[rows * cols];
    boolean[] marked = new boolean[cells.length];
    boolean[] nonFinite = new boolean[cells.length];
    for (int i = 0; i < e.length; i++) {
      long flat = i / Math.max(1, inner);
      long r = colsOf == 0 ? 0 : flat / colsOf;
      long c = colsOf == 0 ? 0 : flat % colsOf;
      int cell = (int) (r * rows / Math.max(1, rowsOf)) * cols + (int) (c * cols / Math.max(1, colsOf));
      boolean bothNaN = Double.isNaN(e[i]) && Double.isNaN(a[i]);
      double abs = bothNaN || e[i] == a[i] ? 0 : Math.abs(a[i] - e[i]);
      if (!Double.isFinite(abs)) {
        nonFinite[cell] = true;
      } else {
        cells[cell] = Math.max(cells[cell], abs);
      }
      if (!(bothNaN || e[i] == a[i] || abs <= tol.atol() + tol.rtol() * Math.abs(e[i]))) {
        marked[cell] = true;
      }
    }
    List<Double> values = new ArrayList<>();
    List<Integer> marks = new ArrayList<>();
    List<Integer> inf = new ArrayList<>();
    for (int k = 0; k < cells.length; k++) {
      values.add(nonFinite[k] ? 0.0 : cells[k]);
      if (marked[k]) {
        marks.add(k);
      }
      if (nonFinite[k]) {
        inf.add(k);
      }
    }
    List<String> notes = new ArrayList<>();
    if (shape.length > 2) {
      notes.add("dimensions 2.." + (shape.length - 1) + " summarised by max");
    }
    if (rows < rowsOf || cols < colsOf) {
      notes.add("downsampled from " + rowsOf + "×" + colsOf + " by max");
    }
    return new Heatmap("|difference| of " + label + " " + Arrays.toString(shape), "difference of " + label,
        rows, cols, values, marks, inf, String.join("; ", notes));
  }
}
