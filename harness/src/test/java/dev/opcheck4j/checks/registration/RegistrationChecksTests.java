package dev.opcheck4j.checks.registration;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import dev.opcheck4j.api.Cause;
import org.junit.jupiter.api.Test;

/** The registration checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class RegistrationChecksTests {
  @Test
  void anOpWithAKernelPasses() throws Exception {
    assertPasses("registration.any-kernel", "good_ops", "good_ops.json", "good_ops::add_scalar");
  }

  @Test
  void anOpWithoutAKernelBreaksTheContract() throws Exception {
    assertFinds("registration.any-kernel", "bad_ops", "bad/bad_ops.json", "bad_ops::no_kernel", Cause.Contract.class);
  }

  @Test
  void aLibraryWithoutDanglingImplsPasses() throws Exception {
    assertPasses("registration.dangling", "good_ops", "good_ops.json", null);
  }

  @Test
  void aDanglingImplBreaksTheContract() throws Exception {
    assertFinds("registration.dangling", "bad_ops", "bad/bad_ops.json", null, Cause.Contract.class);
  }
}
