package dev.opcheck4j.checks.noncontiguous;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import dev.opcheck4j.api.Cause;
import org.junit.jupiter.api.Test;

/** The noncontiguous checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class NoncontiguousChecksTests {
  @Test
  void aKernelThatReadsStridesPasses() throws Exception {
    assertPasses("noncontiguous", "good_ops", "good_ops.json", "good_ops::add_scalar");
  }

  @Test
  void aKernelThatIgnoresStridesIsAValueMismatch() throws Exception {
    assertFinds("noncontiguous", "bad_ops", "bad/bad_ops.json", "bad_ops::ignores_strides", Cause.ValueMismatch.class);
  }
}
