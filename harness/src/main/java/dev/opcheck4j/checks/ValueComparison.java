package dev.opcheck4j.checks;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.noncontiguous.NoncontiguousCheck;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.generate.TensorSpec;
import dev.opcheck4j.generate.TensorText;
import dev.opcheck4j.spec.OpSpec;
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

  /**
   * How {@code actual} differs from {@code expected}.
   *
   * @param cause what differs, typed: values ({@link Cause.ValueMismatch}) or metadata
   * @param butWas the one-line "but was"
   * @param details max abs and rel error, how many elements differ, the first differing index with both values
   */
  public record Mismatch(Cause cause, String butWas, List<Fact> details) {
    public Mismatch {
      details = List.copyOf(details);
    }

    /** The finding, with the details after its "but was". */
    public Finding finding(String expected, String hint) {
      return Finding.of(expected, butWas, hint, cause).with(details.toArray(Fact[]::new));
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
    OpSpec.Tolerance tol = tolerance.orElse(NoncontiguousCheck.defaultTolerance(expected.scalar_type()));
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
        Fact.of("first difference", at + ": " + a[first] + " instead of " + e[first]))));
  }
}
