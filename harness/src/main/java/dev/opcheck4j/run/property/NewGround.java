package dev.opcheck4j.run.property;

import dev.opcheck4j.checks.Check;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How far generation on one (op, device) goes (issue 55): the run's tries are a ceiling, and generation stops
 * before it once the accepted tries stop finding new ground ({@link InputClasses}), unless the run asks for every
 * try ({@code --all-tries}); and how many tries each check was given, so that its result says what it ran on.
 * Pure: it is told the tries.
 */
final class NewGround {
  private final InputClasses classes = new InputClasses();
  private final boolean allTries;
  private final Map<String, Integer> ranOn = new LinkedHashMap<>();
  private Cut cut;

  /** @param allTries whether every try of the run is made ({@code --all-tries}): no stop before the ceiling */
  NewGround(boolean allTries) {
    this.allTries = allTries;
  }

  /** The accepted try {@code g}: whether it had a class no accepted try had. */
  boolean accepted(Tries.Generated g) {
    return classes.accepted(g.gen().origin(), g.example(), g.gen().drewUntied(g.sequence()),
        g.gen().shapesOf(g.example()), g.gen().shapesOf(g.gen().origin()));
  }

  /** A batch of {@code size} tries after {@code t}, cut where generation could stop, so that no try is made past it. */
  int batch(int t, int size) {
    return allTries ? size : Math.max(1, Math.min(size, classes.triesToStop(t)));
  }

  /** Whether generation stops after {@code t} tries, because the last accepted ones found no new ground. */
  boolean stops(int t) {
    if (cut == null && !allTries && classes.saturated(t)) {
      cut = new Cut(t, classes.why(), false);
    }
    return cut != null;
  }

  /** The stop, or null when generation did not stop for want of new ground. */
  Cut cut() {
    return cut;
  }

  /** Try number {@code t} was made with {@code candidates} open on it. */
  void made(List<Check> candidates, int t) {
    candidates.forEach(c -> ranOn.put(c.id(), t));
  }

  /** How many tries check {@code id} was given (an open check: every try made until its share was done). */
  int ranOn(String id) {
    return ranOn.getOrDefault(id, 0);
  }
}
