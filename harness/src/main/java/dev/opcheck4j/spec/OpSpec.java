package dev.opcheck4j.spec;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One operator entry of a spec file.
 *
 * @param op qualified operator name
 * @param devices devices named in the spec; empty means every available device
 * @param skips check ids or families not to run, each with the spec's reason
 * @param tolerance comparison tolerance override, if any
 * @param examples example inputs, in spec order
 * @param ref where the entry is, e.g. {@code spec.json#ops[2]}
 * @param gradcheck gradcheck settings (PyTorch's defaults when the spec gives none)
 * @param vary how generated inputs may differ from the examples
 * @param domain the inputs the op is written for ({@link Domain#ANY} when the spec declares none)
 * @param synthesis what the search for an example found, when the spec gave none and the harness
 *     synthesized them; empty when the examples are the spec's own (or nothing was searched)
 * @param timeout the op's deadline for one unit of work, when the spec gives one (else the run's)
 * @param require check families that must run on this op (the spec's top-level and the entry's own
 *     {@code "require"}); never null
 * @param differentiable false when the spec declares the op non-differentiable ({@code "differentiable":
 *     false}): gradients that stop at it are then by design, not a warning
 * @param reference what the op should compute ({@code "reference"}), when the spec says
 * @param variantOf the op's variant family as the spec names it ({@code "variant_of"}), when the spec
 *     says; without it the family is read from the op's name
 * @param tags the dispatcher tags the entry declares the op's registration carries ({@code "tags"}), sorted;
 *     the checks read them together with the registered ones ({@code checks/OpTags}); never null
 */
public record OpSpec(
    String op,
    List<String> devices,
    Map<String, String> skips,
    Optional<Tolerance> tolerance,
    List<Example> examples,
    String ref,
    Gradcheck gradcheck,
    Vary vary,
    Domain domain,
    String synthesis,
    Optional<Duration> timeout,
    List<String> require,
    boolean differentiable,
    Optional<Reference> reference,
    Optional<VariantOf> variantOf,
    List<String> tags) {

  public OpSpec {
    tags = List.copyOf(new java.util.TreeSet<>(tags));
    require = List.copyOf(require);
    devices = List.copyOf(devices);
    skips = Map.copyOf(skips);
    examples = List.copyOf(examples);
  }

  /** An entry that names no variant family and declares no tags. */
  public OpSpec(String op, List<String> devices, Map<String, String> skips, Optional<Tolerance> tolerance,
      List<Example> examples, String ref, Gradcheck gradcheck, Vary vary, Domain domain, String synthesis,
      Optional<Duration> timeout, List<String> require, boolean differentiable, Optional<Reference> reference) {
    this(op, devices, skips, tolerance, examples, ref, gradcheck, vary, domain, synthesis, timeout, require,
        differentiable, reference, Optional.empty(), List.of());
  }

  /** An entry with no reference. */
  public OpSpec(String op, List<String> devices, Map<String, String> skips, Optional<Tolerance> tolerance,
      List<Example> examples, String ref, Gradcheck gradcheck, Vary vary, Domain domain, String synthesis,
      Optional<Duration> timeout, List<String> require, boolean differentiable) {
    this(op, devices, skips, tolerance, examples, ref, gradcheck, vary, domain, synthesis, timeout, require,
        differentiable, Optional.empty());
  }

  /** A differentiable entry with no reference. */
  public OpSpec(String op, List<String> devices, Map<String, String> skips, Optional<Tolerance> tolerance,
      List<Example> examples, String ref, Gradcheck gradcheck, Vary vary, Domain domain, String synthesis,
      Optional<Duration> timeout, List<String> require) {
    this(op, devices, skips, tolerance, examples, ref, gradcheck, vary, domain, synthesis, timeout, require, true);
  }

  /** An entry that requires no family and is differentiable (the spec says nothing else). */
  public OpSpec(String op, List<String> devices, Map<String, String> skips, Optional<Tolerance> tolerance,
      List<Example> examples, String ref, Gradcheck gradcheck, Vary vary, Domain domain, String synthesis,
      Optional<Duration> timeout) {
    this(op, devices, skips, tolerance, examples, ref, gradcheck, vary, domain, synthesis, timeout, List.of(), true);
  }

  /** An entry with no declared domain and the run's deadline. */
  public OpSpec(String op, List<String> devices, Map<String, String> skips, Optional<Tolerance> tolerance,
      List<Example> examples, String ref, Gradcheck gradcheck, Vary vary) {
    this(op, devices, skips, tolerance, examples, ref, gradcheck, vary, Domain.ANY, "", Optional.empty());
  }

  /** An entry as a spec file gives it (nothing synthesized), with the run's deadline. */
  public OpSpec(String op, List<String> devices, Map<String, String> skips, Optional<Tolerance> tolerance,
      List<Example> examples, String ref, Gradcheck gradcheck, Vary vary, Domain domain) {
    this(op, devices, skips, tolerance, examples, ref, gradcheck, vary, domain, "", Optional.empty());
  }

  /** An entry with the run's deadline. */
  public OpSpec(String op, List<String> devices, Map<String, String> skips, Optional<Tolerance> tolerance,
      List<Example> examples, String ref, Gradcheck gradcheck, Vary vary, Domain domain, String synthesis) {
    this(op, devices, skips, tolerance, examples, ref, gradcheck, vary, domain, synthesis, Optional.empty());
  }

  /** An entry as a spec file gives it (nothing synthesized). */
  public OpSpec(String op, List<String> devices, Map<String, String> skips, Optional<Tolerance> tolerance,
      List<Example> examples, String ref, Gradcheck gradcheck, Vary vary, Domain domain, Optional<Duration> timeout) {
    this(op, devices, skips, tolerance, examples, ref, gradcheck, vary, domain, "", timeout);
  }

  /** A spec entry with nothing but the op name (ops found in a library without a spec). */
  public static OpSpec bare(String op) {
    return new OpSpec(op, List.of(), Map.of(), Optional.empty(), List.of(), op, Gradcheck.DEFAULT, Vary.NONE);
  }

  /** The same entry with these synthesized examples (possibly none), and what the search found. */
  public OpSpec synthesized(List<Example> found, String note) {
    return new OpSpec(op, devices, skips, tolerance, found, ref, gradcheck, vary, domain, note, timeout, require,
        differentiable, reference, variantOf, tags);
  }

  /** The same entry, also requiring these families (the spec's top-level {@code "require"}). */
  public OpSpec requiring(List<String> families) {
    List<String> all = new java.util.ArrayList<>(families);
    require.stream().filter(f -> !all.contains(f)).forEach(all::add);
    return new OpSpec(op, devices, skips, tolerance, examples, ref, gradcheck, vary, domain, synthesis, timeout, all,
        differentiable, reference, variantOf, tags);
  }

  /** The spec's reason for not running {@code checkId} (matched by id or family), if it skips it. */
  public Optional<String> skipReason(String checkId) {
    int dot = checkId.indexOf('.');
    String family = dot < 0 ? checkId : checkId.substring(0, dot);
    String why = skips.get(checkId);
    return Optional.ofNullable(why != null ? why : skips.get(family));
  }

  /**
   * Finite-difference settings, as {@code torch.autograd.gradcheck} names them.
   *
   * @param eps perturbation
   * @param atol absolute tolerance
   * @param rtol relative tolerance
   * @param fast fast mode (random projections) rather than slow mode (full Jacobians)
   * @param doubleBackward false when the entry says {@code "double_backward": false}: the op has no
   *     second derivative, and differentiating its backward must raise (OpInfo's supports_gradgrad)
   */
  public record Gradcheck(double eps, double atol, double rtol, boolean fast, boolean doubleBackward) {
    /** PyTorch's gradcheck defaults, fast mode. */
    public static final Gradcheck DEFAULT = new Gradcheck(1e-6, 1e-5, 1e-3, true);

    /** Settings of an op with a second derivative. */
    public Gradcheck(double eps, double atol, double rtol, boolean fast) {
      this(eps, atol, rtol, fast, true);
    }

    public Gradcheck slow() {
      return new Gradcheck(eps, atol, rtol, false, doubleBackward);
    }

    /** The same settings, for an op with no second derivative. */
    public Gradcheck withoutDoubleBackward() {
      return new Gradcheck(eps, atol, rtol, fast, false);
    }
  }

  /**
   * Absolute and relative tolerance for allclose comparisons.
   *
   * @param atol absolute tolerance
   * @param rtol relative tolerance
   */
  public record Tolerance(double atol, double rtol) {}
}
