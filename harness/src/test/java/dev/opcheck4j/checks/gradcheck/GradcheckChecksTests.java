package dev.opcheck4j.checks.gradcheck;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import dev.opcheck4j.api.Cause;
import org.junit.jupiter.api.Test;

/** The gradcheck checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class GradcheckChecksTests {
  @Test
  void aRightBackwardPasses() throws Exception {
    assertPasses("gradcheck.jacobian", "good_ops", "good_ops.json", "good_ops::scaled_square");
  }

  @Test
  void aWrongBackwardIsAValueMismatch() throws Exception {
    assertFinds("gradcheck.jacobian", "bad_ops", "bad/bad_ops.json", "bad_ops::square_wrong_grad", Cause.ValueMismatch.class);
  }
}
