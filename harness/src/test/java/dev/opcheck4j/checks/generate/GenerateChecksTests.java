package dev.opcheck4j.checks.generate;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import dev.opcheck4j.api.Cause;
import org.junit.jupiter.api.Test;

/** The generate checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class GenerateChecksTests {
  @Test
  void anOpWithExamplesPasses() throws Exception {
    assertPasses("generate.examples", "good_ops", "good_ops.json", "good_ops::add_scalar");
  }

  @Test
  void anOpWithoutARunnableExampleBreaksTheContract() throws Exception {
    assertFinds("generate.examples", "bad_ops", "bad/bad_ops.json", "bad_ops::only_5d", Cause.Contract.class);
  }
}
