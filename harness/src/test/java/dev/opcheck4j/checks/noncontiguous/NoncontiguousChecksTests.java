package dev.opcheck4j.checks.noncontiguous;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.CheckTestHelper;
import dev.opcheck4j.testing.NativeOps;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The noncontiguous checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class NoncontiguousChecksTests {
  @Test
  void aKernelThatReadsStridesPasses() throws Exception {
    assertPasses("noncontiguous", "good_ops", "good_ops.json", "good_ops::add_scalar");
  }

  @Test
  void aKernelThatIgnoresStridesIsAValueMismatch() throws Exception {
    assertFinds("noncontiguous", "bad_ops", "bad/bad_ops.json", "bad_ops::ignores_strides", Cause.ValueMismatch.class);
  }

  @Test
  void equalInfinitiesAreTheSameOutput(@TempDir Path dir) throws Exception {
    // softplus of a uint8 255 overflows to +inf, contiguous or transposed alike: inf - inf is NaN,
    // which must not read as a difference (generation found this as a false failure)
    Path spec = Files.writeString(dir.resolve("inf.json"), """
        {"library": "%s", "ops": [{"op": "ordinary::softplus",
          "examples": [{"args": [{"tensor": [2, 3], "dtype": "uint8", "values": [255, 1, 255, 2, 255, 3]}]}]}]}
        """.formatted(NativeOps.lib("ordinary_ops")));
    OpSpec entry = SpecReader.read(spec).ops().get(0);
    Verdict v = CheckTestHelper.evaluate("noncontiguous", "ordinary_ops", entry);
    assertEquals(Outcome.PASSED, v.outcome(), v.toString());
  }
}
