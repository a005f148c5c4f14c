package dev.opcheck4j.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.Arrays;
import java.util.List;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/** {@code @OpInputs}: a user's own properties over the spec's examples and generated inputs. */
class OpInputsTests {

  @ParameterizedTest
  @OpInputs(spec = "opinputs/mul_add.yaml", op = "my_ops::mul_add", tries = 20)
  void mulAddIsAProductPlusAConstant(OpInput in) {
    Tensor a = in.tensor("a");
    Tensor b = in.tensor("b");
    Tensor expected = a.mul(b).add(new Scalar(in.number("c")));
    assertTrue(torch.allclose(in.call(), expected), in.toString());
  }

  /** A property that does not hold, run by the test below through the Jupiter engine. */
  static class FalseProperty {
    @ParameterizedTest
    @OpInputs(spec = "opinputs/mul_add.yaml", op = "my_ops::mul_add", tries = 30, seed = 7)
    void outputsHaveAtMostTwelveElements(OpInput in) {
      assertTrue(in.call().numel() <= 12, "numel " + in.call().numel());
    }
  }

  @Test
  void aFailingCaseShowsItsInputAndTheMinimalExample() {
    EngineExecutionResults r = EngineTestKit.engine("junit-jupiter").selectors(selectClass(FalseProperty.class)).execute();
    List<String> passedNames = r.testEvents().succeeded().stream().map(e -> e.getTestDescriptor().getDisplayName()).toList();
    assertTrue(passedNames.contains("[1] example #1: a=float32[4, 3], b=float32[4, 3], c=0.5")
        || passedNames.stream().anyMatch(n -> n.startsWith("[1] example #1: a=float32[4, 3]")), passedNames.toString());
    Event failed = r.testEvents().failed().stream().findFirst().orElseThrow(() -> new AssertionError("no generated input has more than 12 elements"));
    assertTrue(failed.getTestDescriptor().getDisplayName().contains("generated #"), failed.getTestDescriptor().getDisplayName());
    Throwable thrown = failed.getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable).orElseThrow();
    String message = thrown.getMessage();
    // no frame of the stream pipeline that iterates the inputs, of reflection or of the interceptor
    StackTraceElement[] frames = thrown.getStackTrace();
    assertEquals("outputsHaveAtMostTwelveElements", frames[frames.length - 1].getMethodName(), Arrays.toString(frames));
    assertTrue(Arrays.stream(frames).noneMatch(f -> f.getClassName().startsWith("java.util.stream")
        || f.getClassName().contains("OpInputsShrinking")), Arrays.toString(frames));
    assertEquals(null, thrown.getCause());
    // the assertion's own type, so an IDE still offers its expected/actual diff
    assertTrue(thrown instanceof org.opentest4j.AssertionFailedError, thrown.getClass().getName());
    assertTrue(message.contains("minimal example : a=float32["), message);
    assertTrue(message.contains("  input           : generated #"), message);
    String minimal = message.substring(message.indexOf("minimal example : "));
    // generation keeps the example's rank and varies sizes near it: the minimal one is just over 12
    // elements (which pair of sizes depends on the shortlex order of the choices), contiguous float32
    java.util.regex.Matcher m = java.util.regex.Pattern
        .compile("minimal example : a=float32\\[(\\d+), (\\d+)\\], b=float32\\[\\1, \\2\\], c=0.5  \\(shrunk in .*").matcher(minimal);
    assertTrue(m.matches(), minimal);
    int numel = Integer.parseInt(m.group(1)) * Integer.parseInt(m.group(2));
    assertTrue(numel > 12 && numel <= 15, minimal);
    assertEquals(0, r.testEvents().aborted().count());
  }
}
