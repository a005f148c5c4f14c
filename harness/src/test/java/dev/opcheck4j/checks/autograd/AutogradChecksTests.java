package dev.opcheck4j.checks.autograd;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import dev.opcheck4j.api.Cause;
import org.junit.jupiter.api.Test;

/** The autograd checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class AutogradChecksTests {
  @Test
  void registeredAutogradPasses() throws Exception {
    assertPasses("autograd.registration", "good_ops", "good_ops.json", "good_ops::scaled_square");
  }

  @Test
  void gradientsThatStopBreakTheContract() throws Exception {
    assertFinds("autograd.registration", "bad_ops", "bad/bad_ops.json", "bad_ops::grad_stops", Cause.Contract.class);
  }
}
