package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;

/** Holds the metadata every check declares once, in its constructor; the scope comes from its type. */
public abstract class CheckBase {
  private final Declaration declared;
  private CheckInfo info;

  protected CheckBase(Declaration declared) {
    this.declared = declared;
  }

  /** The check's metadata, with the scope its type gives. */
  public final CheckInfo info() {
    if (info == null) {
      info = declared.info(((Check) this).scope());
    }
    return info;
  }
}
