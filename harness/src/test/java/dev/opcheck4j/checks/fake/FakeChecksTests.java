package dev.opcheck4j.checks.fake;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import dev.opcheck4j.api.Cause;
import org.junit.jupiter.api.Test;

/** The fake checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class FakeChecksTests {
  @Test
  void aMetaKernelThatMatchesPasses() throws Exception {
    assertPasses("fake.metadata", "good_ops", "good_ops.json", "good_ops::add_scalar");
  }

  @Test
  void aMetaKernelOfTheWrongRankIsAMetadataMismatch() throws Exception {
    assertFinds("fake.metadata", "bad_ops", "bad/bad_ops.json", "bad_ops::meta_rank", Cause.MetadataMismatch.class);
  }

  @Test
  void anOpWithoutAMetaKernelBreaksTheContract() throws Exception {
    assertFinds("fake.missing", "bad_ops", "bad/bad_ops.json", "bad_ops::no_meta", Cause.Contract.class);
  }
}
