package dev.opcheck4j.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The shrinker is tested as jqwik tests its own: by the exact minimum it reaches on known properties. */
class ShrinkerTests {

  /** Generates values from random seeds until one falsifies the property, then shrinks it. */
  static <T> T minimalFailing(Function<Choices, T> gen, Predicate<T> property) {
    for (long seed = 1; seed < 10_000; seed++) {
      Choices c = Choices.random(seed);
      T value = gen.apply(c);
      if (!property.test(value)) {
        Shrinker.Result r = new Shrinker(replay -> !property.test(gen.apply(replay)), 10_000)
            .shrink(c.sequence());
        return gen.apply(Choices.replay(r.sequence()));
      }
    }
    throw new AssertionError("no counterexample found");
  }

  static List<Long> list(Choices c, long maxElement) {
    List<Long> out = new ArrayList<>();
    while (c.draw(4) != 0) { // continue with probability 4/5
      out.add(c.draw(maxElement));
    }
    return out;
  }

  @Test
  void anIntegerShrinksToTheBoundary() {
    assertEquals(Long.valueOf(42L), minimalFailing(c -> c.between(0, 1000), x -> x < 42));
  }

  @Test
  void anIntegerShrinksTowardsTheLowerBound() {
    assertEquals(Long.valueOf(-7L), minimalFailing(c -> c.between(-50, 50), x -> x < -7 || x > 10));
  }

  @Test
  void aPairShrinksToTheShortlexSmallest() {
    assertEquals(List.of(0L, 10L), minimalFailing(c -> List.of(c.draw(100), c.draw(100)), p -> p.get(0) + p.get(1) < 10));
  }

  @Test
  void aListShrinksToOneElementAtTheBoundary() {
    assertEquals(List.of(100L), minimalFailing(c -> list(c, 1000), xs -> xs.stream().mapToLong(x -> x).sum() < 100));
  }

  @Test
  void aListShrinksToTheFewestElements() {
    assertEquals(List.of(0L, 0L, 0L), minimalFailing(c -> list(c, 1000), xs -> xs.size() < 3));
  }

  @Test
  void replayPastTheEndIsZeroAndValuesAreClamped() {
    Choices c = Choices.replay(List.of(5L, 99L));
    assertEquals(5L, c.draw(10));
    assertEquals(10L, c.draw(10));
    assertEquals(0L, c.draw(10));
    assertEquals(List.of(5L, 10L, 0L), c.sequence());
  }

  @Test
  void shortlexOrderPrefersShorterThenSmaller() {
    assertTrue(Shrinker.simpler(List.of(9L), List.of(0L, 0L)));
    assertTrue(Shrinker.simpler(List.of(0L, 10L), List.of(10L, 0L)));
    assertTrue(!Shrinker.simpler(List.of(1L, 2L), List.of(1L, 2L)));
  }

  @Test
  void theSameSeedDrawsTheSameChoices() {
    assertEquals(Choices.random(7).draw(1_000_000), Choices.random(7).draw(1_000_000));
  }

  @Test
  void stepsAndEvaluationsAreCounted() {
    Shrinker.Result r = new Shrinker(c -> c.draw(100) >= 3, 100).shrink(List.of(90L));
    assertEquals(List.of(3L), r.sequence());
    assertTrue(r.steps() > 0 && r.evaluations() >= r.steps(), r.toString());
  }
}
