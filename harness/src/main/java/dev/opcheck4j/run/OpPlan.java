package dev.opcheck4j.run;

import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.session.CheckOn;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.SchemaBaseline;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The check runs of one op's own checks, in plan order: each check on the op, on each of its devices, or
 * on each (device, example), with its verdict when it is known before any unit runs (the op has no
 * examples, or an example does not fit). The runner sends these steps ({@link CheckBatch}) and a result
 * cache asks its entries for their {@link #keys()}: both come from here, so a cached entry holds a
 * result for every check on a device that a run of the op gives one for, and for nothing else.
 *
 * <p>The keys do not depend on the examples: an example check on a device has a step whether the op has
 * examples or not (a skip when it has none), so the keys of the spec's entry before an example is
 * synthesized for it equal those of the entry after. Library, generated-input, supervisor and results
 * checks have no step here: the first run once per library, the others after or instead of these.
 *
 * @param steps the check runs, in the order of the run's checks, then devices, then examples
 */
record OpPlan(List<Step> steps) {
  /** Why an example check on a device runs on nothing: the op has no examples. */
  static final String NO_EXAMPLES = "no examples for this op (give some in a spec file)";

  OpPlan {
    steps = List.copyOf(steps);
  }

  /**
   * One check run.
   *
   * @param check the check
   * @param device its device, or null for a check on the op alone
   * @param example its example, or null for a check on the op or a device (or an example check with no examples)
   * @param preset its verdict when known without a unit (no examples, an invalid example), else null
   */
  record Step(Check check, Device device, Example example, Verdict preset) {}

  /**
   * The steps of an op.
   *
   * @param checks the run's checks, in order
   * @param baseline the run's schema baseline, or null
   * @param tags the op's tags
   * @param devices the op's devices, in order
   * @param examples its examples (none: each example check on a device is skipped)
   * @param invalid why an example does not fit, for those that do not
   */
  static OpPlan of(List<Check> checks, SchemaBaseline baseline, OpTags tags, List<Device> devices,
      List<Example> examples, Map<Example, String> invalid) {
    List<Step> steps = new ArrayList<>();
    for (Check check : checks) {
      if (!check.appliesWith(baseline) || !check.appliesTo(tags)) {
        continue;
      }
      switch (check.scope()) {
        case LIBRARY, GENERATED, SUPERVISOR, RESULTS -> {}
        case OP -> steps.add(new Step(check, null, null, null));
        case DEVICE -> devices.stream().filter(check::appliesTo).forEach(d -> steps.add(new Step(check, d, null, null)));
        case EXAMPLE -> {
          for (Device d : devices.stream().filter(check::appliesTo).toList()) {
            if (examples.isEmpty()) {
              steps.add(new Step(check, d, null, Verdict.skipped(NO_EXAMPLES)));
            }
            for (Example ex : examples) {
              steps.add(new Step(check, d, ex, invalid.containsKey(ex)
                  ? Verdict.skipped("invalid example: " + invalid.get(ex)) : null));
            }
          }
        }
      }
    }
    return new OpPlan(steps);
  }

  /** Each check on a device (or on none) that the steps give a result for, once, in step order. */
  List<CheckOn> keys() {
    LinkedHashSet<CheckOn> keys = new LinkedHashSet<>();
    steps.forEach(s -> keys.add(new CheckOn(s.check().id(), s.device())));
    return List.copyOf(keys);
  }
}
