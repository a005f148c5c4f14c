package dev.opcheck4j.checks.kernel;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import dev.opcheck4j.api.Cause;
import org.junit.jupiter.api.Test;

/** The kernel checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class KernelChecksTests {
  @Test
  void aKernelThatRunsPasses() throws Exception {
    assertPasses("kernel.error", "good_ops", "good_ops.json", "good_ops::add_scalar");
  }

  @Test
  void aKernelThatRaisesIsARejection() throws Exception {
    assertFinds("kernel.error", "bad_ops", "bad/bad_ops.json", "bad_ops::raises", Cause.Rejection.class);
  }
}
