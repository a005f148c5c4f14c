package dev.opcheck4j.checks;

import java.util.function.Consumer;

/**
 * The step a unit is at (materializing inputs, calling a kernel), told to whoever keeps it where it
 * survives the process: when a kernel kills the worker, its supervisor names that step, not only the
 * unit. Steps are told, never read back, in this process; with no keeper installed telling costs nothing.
 */
public final class Progress {
  private static volatile Consumer<String> keeper = step -> {};
  private static volatile String unit = "";

  private Progress() {}

  /** Installs where steps go (the worker's step file). */
  public static void keepIn(Consumer<String> where) {
    keeper = where;
  }

  /** A unit starts: its steps are named {@code <step> for <what>}. */
  public static void unit(String what) {
    unit = what;
    keeper.accept(what);
  }

  /** The unit reaches {@code step}, e.g. {@code meta copies of the inputs}. */
  public static void step(String step) {
    keeper.accept(unit.isEmpty() ? step : step + " for " + unit);
  }
}
