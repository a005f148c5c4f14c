package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;

/** Holds the metadata every check declares once, in its constructor. */
public abstract class CheckBase implements Check {
  private final CheckInfo info;

  protected CheckBase(CheckInfo info) {
    this.info = info;
  }

  @Override
  public final CheckInfo info() {
    return info;
  }
}
