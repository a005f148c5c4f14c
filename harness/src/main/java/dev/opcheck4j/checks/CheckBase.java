package dev.opcheck4j.checks;

import java.util.List;

/** The parts every check declares the same way: id, scope, summary and prerequisites. */
public abstract class CheckBase implements Check {
  private final String id;
  private final Scope scope;
  private final String summary;
  private final List<String> requires;

  protected CheckBase(String id, Scope scope, String summary, String... requires) {
    this.id = id;
    this.scope = scope;
    this.summary = summary;
    this.requires = List.of(requires);
  }

  @Override
  public final String id() {
    return id;
  }

  @Override
  public final String summary() {
    return summary;
  }

  @Override
  public final Scope scope() {
    return scope;
  }

  @Override
  public final List<String> requires() {
    return requires;
  }
}
