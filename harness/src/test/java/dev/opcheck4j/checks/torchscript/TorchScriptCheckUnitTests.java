package dev.opcheck4j.checks.torchscript;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import dev.opcheck4j.api.Cause;
import org.junit.jupiter.api.Test;

/** The torchscript checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class TorchScriptCheckUnitTests {
  @Test
  void anOpCalledFromTorchScriptPasses() throws Exception {
    assertPasses("torchscript.call", "good_ops", "good_ops.json", "good_ops::add_scalar");
  }

  @Test
  void anOverloadTorchScriptCannotTellApartBreaksTheContract() throws Exception {
    assertFinds("torchscript.call", "bad_ops", "bad/bad_ops.json", "bad_ops::twin.copy", Cause.Contract.class);
  }
}
