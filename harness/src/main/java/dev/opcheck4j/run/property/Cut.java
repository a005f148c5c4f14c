package dev.opcheck4j.run.property;

/**
 * Generation stopped for a check before the run's last try.
 *
 * @param tries how many tries were made before it stopped (the one that stopped it included)
 * @param why why, as shown
 * @param lost whether the check lost the tries not made (the op used up its worker deaths); false when generation
 *     stopped by design, having found no new ground: the run's tries are a ceiling
 */
record Cut(int tries, String why, boolean lost) {
  /** A stop by the op's deaths: the check lost the tries not made. */
  Cut(int tries, String why) {
    this(tries, why, true);
  }
}
