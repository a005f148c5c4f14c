package dev.opcheck4j.checks.gradcheck;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Heatmap;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.generate.TensorText;
import dev.opcheck4j.spec.OpSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.bytedeco.pytorch.AbstractTensor;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/** Numerical and analytical Jacobians of a {@link GradFunction}, compared as torch.autograd.gradcheck does. */
final class Jacobians {
  private Jacobians() {}

  /**
   * The comparison's outcome.
   *
   * @param ok whether every entry is within tolerance
   * @param maxAbs largest absolute error
   * @param maxRel largest relative error
   * @param worst where the worst entry is and its two numbers, in words
   * @param reentrancy when the analytical Jacobian differed between two identical runs, where; else null
   * @param heatmaps the worst output and input's Jacobians to draw (none when ok)
   * @param zeroGradient when the worst entry's output and input have an analytical gradient that is
   *     zero (or missing) where the numerical one is not, which ones ({@code "output 0 with respect to
   *     'x'"}); else null
   */
  record Comparison(boolean ok, double maxAbs, double maxRel, String worst, String reentrancy, List<Heatmap> heatmaps,
      String zeroGradient) {
    Comparison(boolean ok, double maxAbs, double maxRel, String worst, String reentrancy) {
      this(ok, maxAbs, maxRel, worst, reentrancy, List.of(), null);
    }
  }

  /** One way of comparing the Jacobians, under the given settings (fast or slow mode). */
  interface Comparing {
    Comparison with(OpSpec.Gradcheck opts) throws OpCall.KernelError, ExampleException;
  }

  /**
   * A comparison and the mode that gave it.
   *
   * @param c the comparison shown
   * @param mode {@code fast}, {@code slow}, or {@code fast, then slow to locate the error}
   */
  record Judged(Comparison c, String mode) {
    /** What the result shows of it: mode, dtype, errors, the worst entry, the calls spent, the settings. */
    List<Fact> facts(GradFunction f, OpSpec.Gradcheck opts) {
      List<Fact> facts = new ArrayList<>();
      facts.add(Fact.of("mode", mode));
      facts.add(Fact.of("dtype", f.dtypeNote()));
      facts.add(Fact.of("max abs error", c.maxAbs()));
      facts.add(Fact.of("max rel error", c.maxRel()));
      facts.add(Fact.of("worst", c.worst()));
      facts.add(Fact.of("calls", f.forwardCalls + " forward, " + f.backwardCalls + " backward"));
      facts.add(Fact.of("settings", "eps " + opts.eps() + ", atol " + opts.atol() + ", rtol " + opts.rtol()));
      return facts;
    }
  }

  /**
   * The finding when slow mode's two identical analytical runs differed.
   *
   * @param what what was computed twice, e.g. {@code "analytical Jacobian"}
   * @param of whose non-determinism it shows, e.g. {@code "backward"}
   */
  static Finding nondeterministic(Comparison c, String what, String of) {
    return Finding.of("the " + what + " is the same in two identical runs",
        of + " is not deterministic: " + c.reentrancy(),
        "remove state from the " + of + " (counters, unseeded randomness, unordered atomics)",
        new Cause.ValueMismatch(what + " of two identical runs"));
  }

  /** Compares in the spec's mode; a fast-mode failure is re-run in slow mode, whose failure names the element. */
  static Judged judge(Comparing compare, OpSpec.Gradcheck opts) throws OpCall.KernelError, ExampleException {
    Comparison c = compare.with(opts);
    if (!c.ok() && opts.fast()) {
      Comparison slow = compare.with(opts.slow());
      if (!slow.ok()) {
        return new Judged(slow, "fast, then slow to locate the error");
      }
    }
    return new Judged(c, opts.fast() ? "fast" : "slow");
  }

  /**
   * The analytical and numerical Jacobian of output {@code o} with respect to input {@code k}, and
   * analytical minus numerical, as three heatmaps on one colour scale: rows over the output's elements,
   * columns over the input's, downsampled (keeping the entry of largest magnitude) to at most
   * {@link Heatmap#MAX_SIDE} a side; entries beyond tolerance are marked.
   */
  static List<Heatmap> pictures(GradFunction f, List<OpCall.Output> outs, int o, int k, double[][] ana, double[][] num,
      OpSpec.Gradcheck opts) {
    int rowsOf = ana.length;
    int colsOf = rowsOf == 0 ? 0 : ana[0].length;
    if (rowsOf == 0 || colsOf == 0) {
      return List.of();
    }
    int rows = Math.min(rowsOf, Heatmap.MAX_SIDE);
    int cols = Math.min(colsOf, Heatmap.MAX_SIDE);
    double[][] grids = new double[3][rows * cols];
    boolean[][] set = new boolean[3][rows * cols];
    boolean[] nonFinite = new boolean[rows * cols];
    List<Integer> marked = new ArrayList<>();
    for (int i = 0; i < rowsOf; i++) {
      for (int j = 0; j < colsOf; j++) {
        int cell = (int) ((long) i * rows / rowsOf) * cols + (int) ((long) j * cols / colsOf);
        double[] v = {ana[i][j], num[i][j], ana[i][j] - num[i][j]};
        for (int g = 0; g < 3; g++) {
          if (!Double.isFinite(v[g])) {
            nonFinite[cell] = true;
          } else if (!set[g][cell] || Math.abs(v[g]) > Math.abs(grids[g][cell])) {
            grids[g][cell] = v[g];
            set[g][cell] = true;
          }
        }
        double abs = Math.abs(ana[i][j] - num[i][j]);
        if ((abs > opts.atol() + opts.rtol() * Math.abs(num[i][j]) || Double.isNaN(abs)) && !marked.contains(cell)) {
          marked.add(cell);
        }
      }
    }
    List<Integer> inf = new ArrayList<>();
    for (int c = 0; c < nonFinite.length; c++) {
      if (nonFinite[c]) {
        inf.add(c);
      }
    }
    String of = "d " + outs.get(o).label() + " / d " + f.names.get(k);
    String note = "rows: the " + rowsOf + " elements of " + outs.get(o).label() + ", columns: the " + colsOf
        + " of " + f.names.get(k) + (rows < rowsOf || cols < colsOf ? "; downsampled, keeping the largest magnitude" : "");
    String[] titles = {"analytical " + of, "numerical " + of, "analytical − numerical"};
    List<Heatmap> maps = new ArrayList<>();
    for (int g = 0; g < 3; g++) {
      List<Double> cells = new ArrayList<>();
      for (double x : grids[g]) {
        cells.add(x);
      }
      maps.add(new Heatmap(titles[g], "jacobian " + of, rows, cols, cells, g == 2 ? marked : List.of(), inf, note));
    }
    return maps;
  }

  /** Full Jacobians, [output][input][row][col], rows over output elements. */
  static double[][][][] numerical(GradFunction f, BoundExample base, List<OpCall.Output> outs, double eps)
      throws OpCall.KernelError {
    List<Tensor> x = detached(f, f.inputs(base));
    double[][][][] jac = new double[outs.size()][x.size()][][];
    for (int k = 0; k < x.size(); k++) {
      long n = x.get(k).numel();
      for (int o = 0; o < outs.size(); o++) {
        jac[o][k] = new double[(int) outs.get(o).tensor().numel()][(int) n];
      }
      for (long j = 0; j < n; j++) {
        List<double[]> plus = perturbed(f, base, x, k, j, eps);
        List<double[]> minus = perturbed(f, base, x, k, j, -eps);
        for (int o = 0; o < outs.size(); o++) {
          for (int i = 0; i < plus.get(o).length; i++) {
            jac[o][k][i][(int) j] = (plus.get(o)[i] - minus.get(o)[i]) / (2 * eps);
          }
        }
      }
    }
    return jac;
  }

  private static List<double[]> perturbed(GradFunction f, BoundExample base, List<Tensor> x, int k, long j, double d)
      throws OpCall.KernelError {
    List<Tensor> xs = new ArrayList<>(x);
    Tensor c = f.copy(x.get(k));
    element(c, j).add_(new Scalar(d));
    xs.set(k, c);
    List<double[]> out = new ArrayList<>();
    for (OpCall.Output o : f.forward(f.with(base, xs))) {
      out.add(TensorCopies.doubles(o.tensor()));
    }
    return out;
  }

  /** Full analytical Jacobians from one forward and one backward per output element. */
  static double[][][][] analytical(GradFunction f, BoundExample withGrad) throws OpCall.KernelError {
    List<Tensor> inputs = f.inputs(withGrad);
    List<OpCall.Output> outs = f.forward(withGrad);
    double[][][][] jac = new double[outs.size()][inputs.size()][][];
    for (int o = 0; o < outs.size(); o++) {
      Tensor out = outs.get(o).tensor();
      int rows = (int) out.numel();
      for (int k = 0; k < inputs.size(); k++) {
        jac[o][k] = new double[rows][(int) inputs.get(k).numel()];
      }
      if (!out.requires_grad()) {
        continue;
      }
      for (int i = 0; i < rows; i++) {
        // grad_output is contiguous whatever the output's layout, as gradcheck's own
        Tensor e = torch.zeros_like(out).contiguous();
        e.view(-1).narrow(0, i, 1).fill_(new Scalar(1.0));
        List<Tensor> g = f.vjp(out, inputs, e);
        for (int k = 0; k < inputs.size(); k++) {
          jac[o][k][i] = TensorCopies.doubles(g.get(k));
        }
      }
    }
    return jac;
  }

  static Comparison slow(GradFunction f, OpSpec.Gradcheck opts) throws OpCall.KernelError, ExampleException {
    BoundExample base = f.fresh(false);
    List<OpCall.Output> outs = f.forward(base);
    double[][][][] num = numerical(f, base, outs, opts.eps());
    double[][][][] ana = analytical(f, f.fresh(true));
    double[][][][] again = analytical(f, f.fresh(true));
    double maxAbs = 0;
    double maxRel = 0;
    String worst = "no Jacobian entries (empty tensors)";
    double worstExcess = Double.NEGATIVE_INFINITY;
    int worstO = -1;
    int worstK = -1;
    boolean ok = true;
    String reentrancy = null;
    for (int o = 0; o < num.length; o++) {
      for (int k = 0; k < num[o].length; k++) {
        for (int i = 0; i < num[o][k].length; i++) {
          for (int j = 0; j < num[o][k][i].length; j++) {
            double a = ana[o][k][i][j];
            double n = num[o][k][i][j];
            double abs = Math.abs(a - n);
            double rel = abs / Math.max(Math.abs(n), Double.MIN_NORMAL);
            maxAbs = Math.max(maxAbs, abs);
            maxRel = Math.max(maxRel, n == 0 ? (abs == 0 ? 0 : Double.POSITIVE_INFINITY) : rel);
            double excess = abs - (opts.atol() + opts.rtol() * Math.abs(n));
            if (excess > 0 || Double.isNaN(abs)) {
              ok = false;
            }
            if (excess > worstExcess || Double.isNaN(abs)) {
              worstExcess = Double.isNaN(abs) ? Double.POSITIVE_INFINITY : excess;
              worst = entry(f, outs, o, k, i, j) + ": analytical " + a + ", numerical " + n;
              worstO = o;
              worstK = k;
            }
            if (reentrancy == null
                && Double.doubleToRawLongBits(a) != Double.doubleToRawLongBits(again[o][k][i][j])) {
              reentrancy = entry(f, outs, o, k, i, j) + ": " + a + " in one backward run, "
                  + again[o][k][i][j] + " in an identical one";
            }
          }
        }
      }
    }
    List<Heatmap> maps = ok || worstO < 0 ? List.of()
        : pictures(f, outs, worstO, worstK, ana[worstO][worstK], num[worstO][worstK], opts);
    String zero = ok || worstO < 0 || !allZero(ana[worstO][worstK]) || allZero(num[worstO][worstK]) ? null
        : pair(f, outs, worstO, worstK);
    return new Comparison(ok && reentrancy == null, maxAbs, maxRel, worst, reentrancy, maps, zero);
  }

  private static boolean allZero(double[][] block) {
    for (double[] row : block) {
      for (double x : row) {
        if (x != 0) {
          return false;
        }
      }
    }
    return true;
  }

  private static String pair(GradFunction f, List<OpCall.Output> outs, int o, int k) {
    return outs.get(o).label() + " with respect to '" + f.names.get(k) + "'";
  }

  /**
   * gradcheck's rule for a function none of whose outputs requires grad ({@code
   * _check_no_differentiable_outputs}): there is no analytical gradient, so the numerical one must be
   * zero. Fast mode: the finite difference along a random unit u per input (2 forward calls per
   * input) must be zero everywhere; slow mode: every entry of the numerical Jacobian.
   */
  static Comparison withoutDifferentiableOutputs(GradFunction f, OpSpec.Gradcheck opts, long seed)
      throws OpCall.KernelError, ExampleException {
    BoundExample base = f.fresh(false);
    List<OpCall.Output> outs = f.forward(base);
    if (!opts.fast()) {
      double[][][][] num = numerical(f, base, outs, opts.eps());
      double max = 0;
      String worst = "every entry of the numerical Jacobian is zero";
      int worstO = -1;
      int worstK = -1;
      for (int o = 0; o < num.length; o++) {
        for (int k = 0; k < num[o].length; k++) {
          for (int i = 0; i < num[o][k].length; i++) {
            for (int j = 0; j < num[o][k][i].length; j++) {
              double n = num[o][k][i][j];
              if (Math.abs(n) > max || (Double.isNaN(n) && worstO < 0)) {
                max = Double.isNaN(n) ? Double.POSITIVE_INFINITY : Math.abs(n);
                worst = entry(f, outs, o, k, i, j) + ": analytical none (no output requires grad), numerical " + n;
                worstO = o;
                worstK = k;
              }
            }
          }
        }
      }
      if (worstO < 0) {
        return new Comparison(true, 0, 0, worst, null);
      }
      double[][] none = new double[num[worstO][worstK].length][num[worstO][worstK].length == 0 ? 0
          : num[worstO][worstK][0].length];
      return new Comparison(false, max, Double.POSITIVE_INFINITY, worst, null,
          pictures(f, outs, worstO, worstK, none, num[worstO][worstK], opts), pair(f, outs, worstO, worstK));
    }
    SplittableRandom random = new SplittableRandom(seed);
    List<Tensor> x = detached(f, f.inputs(base));
    double max = 0;
    String worst = "the numerical gradient along a random direction is zero for every input";
    String zero = null;
    for (int k = 0; k < x.size(); k++) {
      Tensor u = unitVector(random, x.get(k));
      List<Tensor> plus = new ArrayList<>(x);
      List<Tensor> minus = new ArrayList<>(x);
      plus.set(k, shifted(f, x.get(k), u, opts.eps()));
      minus.set(k, shifted(f, x.get(k), u, -opts.eps()));
      List<OpCall.Output> op = f.forward(f.with(base, plus));
      List<OpCall.Output> om = f.forward(f.with(base, minus));
      for (int o = 0; o < outs.size(); o++) {
        double[] p = TensorCopies.doubles(op.get(o).tensor());
        double[] m = TensorCopies.doubles(om.get(o).tensor());
        for (int i = 0; i < p.length; i++) {
          double jvp = (p[i] - m[i]) / (2 * opts.eps());
          if (Math.abs(jvp) > max || (Double.isNaN(jvp) && zero == null)) {
            max = Double.isNaN(jvp) ? Double.POSITIVE_INFINITY : Math.abs(jvp);
            long[] shape = outs.get(o).tensor().sizes().vec().get();
            worst = "(Ju)" + TensorText.index(shape, i) + " for " + outs.get(o).label() + " and " + f.names.get(k)
                + ": analytical none (no output requires grad), numerical " + jvp;
            zero = pair(f, outs, o, k);
          }
        }
      }
    }
    return new Comparison(zero == null, max, zero == null ? 0 : Double.POSITIVE_INFINITY, worst, null, List.of(),
        zero);
  }

  static String entry(GradFunction f, List<OpCall.Output> outs, int o, int k, int i, int j) {
    long[] outShape = outs.get(o).tensor().sizes().vec().get();
    return "d " + outs.get(o).label() + TensorText.index(outShape, i) + " / d " + f.names.get(k)
        + TensorText.index(f.shapes.get(k), j);
  }

  /**
   * Fast mode: random unit projections u (per input) and v (per output); compares vᵀJu from finite
   * differences along u (2 forward calls per input) with vᵀJ·u from autograd (1 backward per
   * output), with atol scaled by sum(u)·sum(v) as PyTorch's fast gradcheck does.
   */
  static Comparison fast(GradFunction f, OpSpec.Gradcheck opts, long seed) throws OpCall.KernelError, ExampleException {
    SplittableRandom random = new SplittableRandom(seed);
    BoundExample base = f.fresh(false);
    List<Tensor> x = detached(f, f.inputs(base));
    List<OpCall.Output> outs = f.forward(base);
    List<Tensor> us = new ArrayList<>();
    for (Tensor xi : x) {
      us.add(unitVector(random, xi));
    }
    List<Tensor> vs = new ArrayList<>();
    for (OpCall.Output o : outs) {
      vs.add(unitVector(random, o.tensor()));
    }
    double[][] numerical = new double[outs.size()][x.size()];
    for (int k = 0; k < x.size(); k++) {
      List<Tensor> plus = new ArrayList<>(x);
      List<Tensor> minus = new ArrayList<>(x);
      plus.set(k, shifted(f, x.get(k), us.get(k), opts.eps()));
      minus.set(k, shifted(f, x.get(k), us.get(k), -opts.eps()));
      List<OpCall.Output> op = f.forward(f.with(base, plus));
      List<OpCall.Output> om = f.forward(f.with(base, minus));
      for (int o = 0; o < outs.size(); o++) {
        double[] p = TensorCopies.doubles(op.get(o).tensor());
        double[] m = TensorCopies.doubles(om.get(o).tensor());
        double[] v = TensorCopies.doubles(vs.get(o));
        double sum = 0;
        for (int i = 0; i < p.length; i++) {
          sum += v[i] * (p[i] - m[i]) / (2 * opts.eps());
        }
        numerical[o][k] = sum;
      }
    }
    BoundExample withGrad = f.fresh(true);
    List<Tensor> inputs = f.inputs(withGrad);
    List<OpCall.Output> gradOuts = f.forward(withGrad);
    double maxAbs = 0;
    double maxRel = 0;
    boolean ok = true;
    String worst = "no outputs";
    String zero = null;
    double worstExcess = Double.NEGATIVE_INFINITY;
    for (int o = 0; o < gradOuts.size(); o++) {
      Tensor out = gradOuts.get(o).tensor();
      List<Tensor> g = out.requires_grad() ? f.vjp(out, inputs, vs.get(o).view(out.sizes())) : null;
      double sumV = TensorCopies.doubles(vs.get(o).sum())[0];
      for (int k = 0; k < inputs.size(); k++) {
        double a = 0;
        if (g != null) {
          double[] gk = TensorCopies.doubles(g.get(k));
          double[] u = TensorCopies.doubles(us.get(k));
          for (int j = 0; j < gk.length; j++) {
            a += gk[j] * u[j];
          }
        }
        double n = numerical[o][k];
        double sumU = TensorCopies.doubles(us.get(k).sum())[0];
        double atol = opts.atol() * sumU * sumV;
        double abs = Math.abs(a - n);
        maxAbs = Math.max(maxAbs, abs);
        maxRel = Math.max(maxRel, n == 0 ? (abs == 0 ? 0 : Double.POSITIVE_INFINITY) : abs / Math.abs(n));
        double excess = abs - (atol + opts.rtol() * Math.abs(n));
        if (excess > 0 || Double.isNaN(abs)) {
          ok = false;
        }
        if (excess > worstExcess || Double.isNaN(abs)) {
          worstExcess = Double.isNaN(abs) ? Double.POSITIVE_INFINITY : excess;
          worst = "vᵀJu for " + gradOuts.get(o).label() + " and " + f.names.get(k) + ": analytical " + a
              + ", numerical " + n;
          zero = a == 0 && n != 0 ? pair(f, gradOuts, o, k) : null;
        }
      }
    }
    return new Comparison(ok, maxAbs, maxRel, worst, null, List.of(), ok ? null : zero);
  }

  /** Uniform [0, 1) entries, normalized to unit length, float64, shaped like {@code like}. */
  static Tensor unitVector(SplittableRandom random, Tensor like) {
    double[] u = new double[(int) like.numel()];
    double norm = 0;
    for (int i = 0; i < u.length; i++) {
      u[i] = random.nextDouble();
      norm += u[i] * u[i];
    }
    norm = Math.sqrt(norm);
    for (int i = 0; i < u.length; i++) {
      u[i] = norm == 0 ? 0 : u[i] / norm;
    }
    Tensor t = AbstractTensor.create(u).to(like.device(), torch.ScalarType.Double);
    return t.reshape(like.sizes().vec().get());
  }

  /** Uniform [-1, 1) entries, float64, contiguous, shaped like {@code like}: gradgradcheck's grad_outputs. */
  static Tensor uniform(SplittableRandom random, Tensor like) {
    double[] u = new double[(int) like.numel()];
    for (int i = 0; i < u.length; i++) {
      u[i] = 2 * random.nextDouble() - 1;
    }
    return AbstractTensor.create(u).to(like.device(), torch.ScalarType.Double).reshape(like.sizes().vec().get());
  }

  /** Detached copies in the inputs' own layouts: the op sees perturbed inputs laid out as the example's. */
  static List<Tensor> detached(GradFunction f, List<Tensor> xs) {
    List<Tensor> out = new ArrayList<>();
    for (Tensor x : xs) {
      out.add(f.copy(x));
    }
    return out;
  }

  /** {@code x + d·u} in {@code x}'s layout (an out-of-place add may choose other strides). */
  private static Tensor shifted(GradFunction f, Tensor x, Tensor u, double d) {
    Tensor c = f.copy(x);
    c.add_(u.mul(new Scalar(d)));
    return c;
  }

  /**
   * Element {@code j} (in row-major order) of {@code t}, as a 0-dim view of it whatever its strides:
   * {@code view(-1)} exists only for some layouts.
   */
  static Tensor element(Tensor t, long j) {
    long[] sizes = t.sizes().vec().get();
    Tensor e = t;
    long rest = j;
    for (int d = 0; d < sizes.length; d++) {
      long inner = 1;
      for (int i = d + 1; i < sizes.length; i++) {
        inner *= sizes[i];
      }
      e = e.select(0, rest / inner);
      rest %= inner;
    }
    return e;
  }
}
