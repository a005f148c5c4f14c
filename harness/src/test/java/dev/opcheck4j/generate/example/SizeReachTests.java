package dev.opcheck4j.generate.example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The largest sizes generation reached, per dimension, drawn and accepted (issue 52). */
class SizeReachTests {

  private static Map<String, long[]> shapes(Object... labelsAndShapes) {
    Map<String, long[]> out = new LinkedHashMap<>();
    for (int i = 0; i < labelsAndShapes.length; i += 2) {
      out.put((String) labelsAndShapes[i], (long[]) labelsAndShapes[i + 1]);
    }
    return out;
  }

  @Test
  void eachDimensionsLargestSizeDrawnAcceptedAndInTheExamples() {
    SizeReach reach = new SizeReach();
    assertEquals("", reach.text(), "nothing drawn, nothing said");
    reach.example(shapes("x", new long[] {2, 3}, "scale", new long[] {2}));
    reach.drew(shapes("x", new long[] {5, 0}, "scale", new long[] {5}), false);
    reach.drew(shapes("x", new long[] {1, 7}, "scale", new long[] {1}), true);
    reach.drew(shapes("x", new long[] {3, 4}, "scale", new long[] {3}), true);
    assertEquals("x: drawn [5, 7], accepted [3, 7], example [2, 3]; scale: drawn [5], accepted [3], example [2]",
        reach.text());
  }

  @Test
  void aTensorNoAcceptedInputHadAndRanksThatDiffer() {
    SizeReach reach = new SizeReach();
    reach.example(shapes("x", new long[] {4}));
    reach.example(shapes("x", new long[] {2, 3}));
    reach.drew(shapes("x", new long[] {9}), false);
    reach.drew(shapes("x", new long[] {1, 6}), false);
    assertEquals("x: drawn [9, 6], accepted none, example [4, 3]", reach.text());
  }
}
