package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What about a crashing input matters is learned from the inputs that ran, and only that class is avoided. */
class CrashClassesTests {
  private static Example input(String dtype, long m, long... sizes) {
    List<SpecValue> dims = new ArrayList<>();
    for (long s : sizes) {
      dims.add(new SpecValue(s, "-"));
    }
    Map<String, SpecValue> t = new LinkedHashMap<>();
    t.put("tensor", new SpecValue(dims, "-"));
    t.put("dtype", new SpecValue(dtype, "-"));
    return new Example("ex", List.of(new SpecValue(t, "-"), new SpecValue(m, "-")), Map.of());
  }

  @Test
  void anEmptyInputIsTheClassWhenNoInputThatRanWasEmpty() {
    CrashClasses c = new CrashClasses(List.of("x", "m"));
    c.survived(input("float32", 2, 3, 3));
    c.survived(input("float64", 2, 1, 7));
    assertTrue(c.crashed(input("float32", 2, 0, 0), "kernel.crash", "x=float32[0, 0], m=2"));
    assertTrue(c.steersAway(input("float64", 5, 4, 0)), "another empty x, whatever its dtype and m");
    assertFalse(c.steersAway(input("float64", 9, 2, 5)));
    assertEquals(List.of("steered 1 try away from inputs where x has no elements (what the kernel.crash on"
        + " x=float32[0, 0], m=2 has and no input that ran had); others were drawn in their place"), c.lines());
  }

  @Test
  void whenEmptyInputsRanTheClassIsTheDimensionWhoseSizeIsZero() {
    CrashClasses c = new CrashClasses(List.of("x", "m"));
    c.survived(input("float32", 2, 0, 3));
    assertTrue(c.crashed(input("float32", 2, 3, 0), "kernel.crash", "x=float32[3, 0], m=2"));
    assertTrue(c.steersAway(input("float32", 2, 5, 0)));
    assertFalse(c.steersAway(input("float32", 2, 0, 5)), "a zero in the other dimension ran");
  }

  @Test
  void aDtypeOrAnIntValueIsTheClassWhenTheSizesAllRan() {
    CrashClasses dtypes = new CrashClasses(List.of("x", "m"));
    dtypes.survived(input("float32", 2, 3, 3));
    assertTrue(dtypes.crashed(input("float64", 2, 3, 3), "kernel.crash", "x=float64[3, 3], m=2"));
    assertTrue(dtypes.steersAway(input("float64", 4, 1, 1)));
    CrashClasses ints = new CrashClasses(List.of("x", "m"));
    ints.survived(input("float32", 2, 3, 3));
    assertTrue(ints.crashed(input("float32", 0, 3, 3), "kernel.crash", "x=float32[3, 3], m=0"));
    assertTrue(ints.steersAway(input("float32", 0, 1, 2)));
    assertFalse(ints.steersAway(input("float32", 1, 1, 2)));
  }

  @Test
  void theSizesAreTheClassWhenNothingElseIsNew() {
    CrashClasses c = new CrashClasses(List.of("x", "m"));
    c.survived(input("float32", 2, 3, 3));
    c.survived(input("float32", 2, 1, 2));
    assertTrue(c.crashed(input("float32", 2, 1, 1), "kernel.crash", "x=float32[1, 1], m=2"));
    assertTrue(c.steersAway(input("float64", 7, 1, 1)));
    assertFalse(c.steersAway(input("float32", 2, 2, 1)));
  }

  @Test
  void aShrinkCandidateInALearnedClassIsSkippedAndCounted() {
    CrashClasses c = new CrashClasses(List.of("x", "m"));
    c.survived(input("float32", 2, 3, 3));
    assertTrue(c.crashed(input("float32", 2, 0, 0), "kernel.crash", "x=float32[0, 0], m=2"));
    assertTrue(c.skipsShrinkCandidate(input("float32", 2, 0, 4)));
    assertTrue(c.skipsShrinkCandidate(input("float32", 2, 1, 0)));
    assertFalse(c.skipsShrinkCandidate(input("float32", 2, 1, 2)));
    assertEquals(List.of("steered 0 tries away from inputs where x has no elements (what the kernel.crash on"
        + " x=float32[0, 0], m=2 has and no input that ran had); others were drawn in their place; 2 candidates"
        + " of other findings' shrinks in it not run"), c.lines());
  }

  @Test
  void anInputWhoseEveryFeatureRanTeachesNothing() {
    CrashClasses c = new CrashClasses(List.of("x", "m"));
    c.survived(input("float32", 2, 3, 3));
    assertFalse(c.crashed(input("float32", 2, 3, 3), "kernel.crash", "x=float32[3, 3], m=2"));
    assertFalse(c.any());
    assertFalse(c.steersAway(input("float32", 2, 3, 3)));
  }
}
