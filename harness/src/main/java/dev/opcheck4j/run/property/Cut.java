package dev.opcheck4j.run.property;

/**
 * Generation stopped for a check before the run's last try.
 *
 * @param tries how many tries were made before it stopped (the one that stopped it included)
 * @param why why, as shown
 */
record Cut(int tries, String why) {}
