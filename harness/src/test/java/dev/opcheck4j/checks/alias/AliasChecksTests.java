package dev.opcheck4j.checks.alias;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import dev.opcheck4j.api.Cause;
import org.junit.jupiter.api.Test;

/** The alias checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class AliasChecksTests {
  @Test
  void aNewOutputPasses() throws Exception {
    assertPasses("alias.returns-input", "good_ops", "good_ops.json", "good_ops::add_scalar");
  }

  @Test
  void returningTheInputBreaksTheContract() throws Exception {
    assertFinds("alias.returns-input", "bad_ops", "bad/bad_ops.json", "bad_ops::returns_input", Cause.Contract.class);
  }

  @Test
  void anUndeclaredViewBreaksTheContract() throws Exception {
    assertFinds("alias.undeclared", "bad_ops", "bad/bad_ops.json", "bad_ops::view_undeclared", Cause.Contract.class);
  }
}
