package dev.opcheck4j.api;

/** Receives results as they are produced, so nothing gathered is lost when a later op goes wrong. */
@FunctionalInterface
public interface ResultListener {
  void accept(CheckResult result);
}
