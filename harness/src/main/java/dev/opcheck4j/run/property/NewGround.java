package dev.opcheck4j.run.property;

import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Fate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How far generation on one (op, device) goes (issue 55): the run's tries are a ceiling, and generation stops
 * before it once the accepted tries stop finding new ground ({@link InputClasses}), unless the run asks for every
 * try ({@code --all-tries}); and how many tries each check was given, so that its result says what it ran on.
 * Where the library was built with coverage, a try that reached kernel arcs no try had reached is new ground too,
 * and is kept for the tries to mutate from ({@link Tries#keep}; issue 54). Pure: it is told the tries.
 */
final class NewGround {
  private final InputClasses classes = new InputClasses();
  private final boolean allTries;
  private final Map<String, Integer> ranOn = new LinkedHashMap<>();
  private final java.util.Set<Integer> arcs = new java.util.HashSet<>();
  private Tries tries;
  private int kept;
  private Cut cut;

  /** @param allTries whether every try of the run is made ({@code --all-tries}): no stop before the ceiling */
  NewGround(boolean allTries) {
    this.allTries = allTries;
  }

  /** The tries a try that reached new arcs is kept for; true. */
  boolean feeds(Tries tries) {
    this.tries = tries;
    return true;
  }

  /**
   * The try {@code g}, which the kernel accepted ({@code kernel}: its call, with the arcs it reached): whether it had
   * a class no accepted try had, or reached arcs no try had (then it is kept for the tries to mutate from).
   */
  boolean accepted(Tries.Generated g, Fate<Answers.Acceptance> kernel) {
    boolean fresh = classes.accepted(g.gen().origin(), g.example(), g.gen().drewUntied(g.sequence()),
        g.gen().shapesOf(g.example()), g.gen().shapesOf(g.gen().origin()));
    if (kernel instanceof Fate.Answered<Answers.Acceptance> a && a.answer() instanceof Answers.Accepted reached
        && arcs.addAll(reached.arcs())) {
      classes.reachedNewArcs();
      kept++;
      if (tries != null) {
        tries.keep(g);
      }
      return true;
    }
    return fresh;
  }

  /** How many kernel arcs the tries reached (none without coverage), and how many tries reached new ones. */
  List<String> arcsLines() {
    return arcs.isEmpty() ? List.of() : List.of("coverage-guided: the tries reached " + arcs.size() + " kernel arcs (gcov's counters);"
        + " " + kept + " tries that reached new ones were kept, and every other random try after them mutated one");
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

  /** A try was made with {@code candidates} open on it. */
  void made(List<Check> candidates) {
    candidates.forEach(c -> ranOn.merge(c.id(), 1, Integer::sum));
  }

  /**
   * How many tries check {@code id} was given (an open check: every try made until its share was done, and every
   * size edge case).
   */
  int ranOn(String id) {
    return ranOn.getOrDefault(id, 0);
  }
}
