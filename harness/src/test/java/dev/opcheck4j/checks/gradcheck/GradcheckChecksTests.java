package dev.opcheck4j.checks.gradcheck;

import static dev.opcheck4j.testing.CheckTestHelper.assertFinds;
import static dev.opcheck4j.testing.CheckTestHelper.assertPasses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Heatmap;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The gradcheck checks on their own, in this process: a good op passes, a corpus op fails with its cause kind. */
class GradcheckChecksTests {
  @Test
  void aRightBackwardPasses() throws Exception {
    assertPasses("gradcheck.jacobian", "good_ops", "good_ops.json", "good_ops::scaled_square");
  }

  @Test
  void aWrongBackwardIsAValueMismatchWithBothJacobiansToDraw() throws Exception {
    Finding f = assertFinds("gradcheck.jacobian", "bad_ops", "bad/bad_ops.json", "bad_ops::square_wrong_grad",
        Cause.ValueMismatch.class);
    List<Heatmap> maps = f.heatmaps();
    assertEquals(List.of("analytical d output 0 / d x", "numerical d output 0 / d x", "analytical − numerical"),
        maps.stream().map(Heatmap::title).toList());
    assertEquals(1, maps.stream().map(Heatmap::group).distinct().count(), "one colour scale");
    Heatmap delta = maps.get(2);
    // square's Jacobian is diagonal: every diagonal entry is wrong, nothing else
    assertEquals(delta.rows(), delta.cols());
    for (int i = 0; i < delta.rows(); i++) {
      assertTrue(delta.marked().contains(i * delta.cols() + i), "diagonal entry " + i + " marked: " + delta);
    }
    assertEquals(delta.rows(), delta.marked().size(), delta.toString());
  }
}
