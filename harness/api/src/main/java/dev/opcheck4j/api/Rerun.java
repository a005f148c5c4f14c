package dev.opcheck4j.api;

/** Turns a {@link Repro} into the line a user types where they are: the CLI, Maven. */
@FunctionalInterface
public interface Rerun {
  /** The rerun line for {@code repro}. */
  String line(Repro repro);

  /** {@code ./opcheck check ...}. */
  Rerun CLI = r -> "./opcheck check " + r.source() + " --op " + r.op()
      + (r.check() == null ? "" : " --check " + r.check())
      + (r.device() == null ? "" : " --device " + r.device())
      + (r.runtime() == null ? "" : " --runtime " + r.runtime())
      + " --seed " + r.seed() + " --tries " + r.tries() + (r.oneWorker() ? " --jobs 1" : "");

  /** {@code mvn test -Dopcheck4j.ops=...}: the JUnit engine's configuration parameters. */
  Rerun MAVEN = r -> "mvn test" + engineParameters(r, "-D");

  private static String engineParameters(Repro r, String prefix) {
    return " " + prefix + "opcheck4j.ops=" + r.op()
        + (r.check() == null ? "" : " " + prefix + "opcheck4j.checks=" + r.check())
        + (r.device() == null ? "" : " " + prefix + "opcheck4j.devices=" + r.device())
        + (r.runtime() == null ? "" : " " + prefix + "opcheck4j.runtimes=" + r.runtime())
        + " " + prefix + "opcheck4j.seed=" + r.seed() + " " + prefix + "opcheck4j.tries=" + r.tries();
  }
}
