package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An accepted try finds new ground when it has a class no accepted try had; a quiet window after the floor stops. */
class InputClassesTests {
  private static final Example ORIGIN = new Example("ex", List.of(tensor("float32", "contiguous", 2, 3),
      new SpecValue(2L, "-")), Map.of());

  private static SpecValue tensor(String dtype, String layout, long... sizes) {
    Map<String, SpecValue> m = new LinkedHashMap<>();
    m.put("tensor", new SpecValue(java.util.Arrays.stream(sizes).mapToObj(s -> new SpecValue(s, "-")).toList(), "-"));
    m.put("dtype", new SpecValue(dtype, "-"));
    m.put("layout", new SpecValue(layout, "-"));
    return new SpecValue(m, "-");
  }

  private static boolean accept(InputClasses classes, String dtype, String layout, long n, long... sizes) {
    Example e = new Example("ex", List.of(tensor(dtype, layout, sizes), new SpecValue(n, "-")), Map.of());
    return classes.accepted(ORIGIN, e, false, Map.of("x", sizes), Map.of("x", new long[] {2, 3}));
  }

  @Test
  void aTryFindsNewGroundOnlyWithAClassNoAcceptedTryHad() {
    InputClasses classes = new InputClasses();
    assertTrue(accept(classes, "float32", "contiguous", 2, 2, 3), "the first try: every class is new");
    assertFalse(accept(classes, "float32", "contiguous", 2, 1, 2), "smaller sizes, within the example's: no new class");
    assertTrue(accept(classes, "float64", "contiguous", 2, 1, 2), "a dtype");
    assertTrue(accept(classes, "float64", "transposed", 2, 1, 2), "a layout");
    assertTrue(accept(classes, "float64", "transposed", 2, 0, 2), "empty");
    assertTrue(accept(classes, "float64", "transposed", 2, 1, 1), "a single element");
    assertTrue(accept(classes, "float64", "transposed", 2, 5, 1), "a size above the example's");
    assertFalse(accept(classes, "float32", "transposed", 2, 7, 2), "seen, each class alone: combinations are no class");
    assertTrue(accept(classes, "float32", "transposed", -3, 7, 2), "an int below zero where the example's is positive");
    assertFalse(accept(classes, "float32", "transposed", -5, 7, 2));
  }

  @Test
  void generationStopsOnceTheFloorIsReachedAndTheLastWindowOfAcceptedTriesFoundNothingNew() {
    InputClasses classes = new InputClasses();
    accept(classes, "float32", "contiguous", 2, 2, 3);
    int t = 1;
    for (; t < InputClasses.WINDOW; t++) {
      accept(classes, "float32", "contiguous", 2, 1, 2);
    }
    assertFalse(classes.saturated(t), "a quiet window, but under the floor");
    assertEquals(InputClasses.FLOOR - t, classes.triesToStop(t));
    for (; t < InputClasses.FLOOR - 1; t++) {
      accept(classes, "float32", "contiguous", 2, 1, 2);
    }
    assertTrue(accept(classes, "float64", "contiguous", 2, 1, 2), "new ground just before the floor");
    t++;
    assertFalse(classes.saturated(t), "the window starts again");
    assertEquals(InputClasses.WINDOW, classes.triesToStop(t));
    for (int i = 0; i < InputClasses.WINDOW - 1; i++, t++) {
      accept(classes, "float32", "contiguous", 2, 1, 2);
    }
    assertFalse(classes.saturated(t));
    classes.reachedNewArcs();
    assertFalse(classes.saturated(t + 1), "new kernel arcs are new ground too");
    for (int i = 0; i < InputClasses.WINDOW; i++, t++) {
      accept(classes, "float32", "contiguous", 2, 1, 2);
    }
    assertTrue(classes.saturated(t));
    assertTrue(classes.why().startsWith("no new input class in the last 20 accepted tries (7 classes seen"), classes.why());
  }
}
