package dev.opcheck4j.checks;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.Operator;

/**
 * What a check looks at.
 *
 * @param library the library under test
 * @param op the operator (null for library-scope checks)
 * @param spec the op's spec entry: tolerances, skips; never null (an empty spec when none was given)
 * @param device the device under test (null for library- and op-scope checks)
 * @param example the example (null unless the check is example-scoped)
 * @param seed the run's seed, for checks that draw random values
 * @param recorded what a baseline recorded the op giving on this example ({@code check --baseline}), or
 *     null when none did
 */
public record Subject(
    OpLibrary library, Operator op, OpSpec spec, Device device, Example example, long seed,
    dev.opcheck4j.torch.ValueBaseline.Recorded recorded) {

  /** A subject with nothing recorded by a baseline. */
  public Subject(OpLibrary library, Operator op, OpSpec spec, Device device, Example example, long seed) {
    this(library, op, spec, device, example, seed, null);
  }
}
