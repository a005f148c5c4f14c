package dev.opcheck4j.checks.determinism;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import dev.opcheck4j.api.Cause;
import org.junit.jupiter.api.Test;

/** The determinism checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class DeterminismChecksTests {
  @Test
  void aPureKernelPasses() throws Exception {
    assertPasses("determinism", "good_ops", "good_ops.json", "good_ops::add_scalar");
  }

  @Test
  void aKernelWithHiddenStateIsAValueMismatch() throws Exception {
    assertFinds("determinism", "bad_ops", "bad/bad_ops.json", "bad_ops::nondeterministic", Cause.ValueMismatch.class);
  }
}
