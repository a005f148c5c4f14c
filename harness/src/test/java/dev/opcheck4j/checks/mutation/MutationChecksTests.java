package dev.opcheck4j.checks.mutation;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import dev.opcheck4j.api.Cause;
import org.junit.jupiter.api.Test;

/** The mutation checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class MutationChecksTests {
  @Test
  void aKernelThatWritesNoInputPasses() throws Exception {
    assertPasses("mutation.undeclared", "good_ops", "good_ops.json", "good_ops::add_scalar");
  }

  @Test
  void anUndeclaredWriteBreaksTheContract() throws Exception {
    assertFinds("mutation.undeclared", "bad_ops", "bad/bad_ops.json", "bad_ops::mutates_input", Cause.Contract.class);
  }
}
