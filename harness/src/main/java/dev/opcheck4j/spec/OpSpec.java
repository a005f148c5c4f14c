package dev.opcheck4j.spec;

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
 */
public record OpSpec(
    String op,
    List<String> devices,
    Map<String, String> skips,
    Optional<Tolerance> tolerance,
    List<Example> examples,
    String ref) {

  public OpSpec {
    devices = List.copyOf(devices);
    skips = Map.copyOf(skips);
    examples = List.copyOf(examples);
  }

  /** A spec entry with nothing but the op name (ops found in a library without a spec). */
  public static OpSpec bare(String op) {
    return new OpSpec(op, List.of(), Map.of(), Optional.empty(), List.of(), op);
  }

  /** The spec's reason for not running {@code checkId} (matched by id or family), if it skips it. */
  public Optional<String> skipReason(String checkId) {
    int dot = checkId.indexOf('.');
    String family = dot < 0 ? checkId : checkId.substring(0, dot);
    String why = skips.get(checkId);
    return Optional.ofNullable(why != null ? why : skips.get(family));
  }

  /**
   * Absolute and relative tolerance for allclose comparisons.
   *
   * @param atol absolute tolerance
   * @param rtol relative tolerance
   */
  public record Tolerance(double atol, double rtol) {}
}
