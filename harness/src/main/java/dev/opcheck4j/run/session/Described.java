package dev.opcheck4j.run.session;

import dev.opcheck4j.run.link.Death;

/** What materializing an example gave ({@link OpSession#describe}): its inputs as text, why it does not fit, or the death it caused. */
public sealed interface Described {
  /** Its inputs as text. */
  record Shown(String text) implements Described {}

  /** Why it cannot be materialized: it does not fit the schema or the machine. */
  record Unfit(String why) implements Described {}

  /** How materializing it killed the worker. */
  record Killed(Death death) implements Described {}
}
