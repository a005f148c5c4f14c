package dev.opcheck4j.api;

/** Receives results as they are produced, so nothing gathered is lost when a later op goes wrong. */
@FunctionalInterface
public interface ResultListener {
  void accept(CheckResult result);

  /**
   * Called once before the first result, when the run block is known (which devices will run and
   * why the others will not, the inputs, the checks); its duration is still 0. Does nothing by default.
   */
  default void runStarted(RunInfo run) {}
}
