package dev.opcheck4j.spec;

import java.util.List;

/** A spec file that cannot be used; each line of the message starts with {@code file:line:column:}. */
public final class SpecException extends Exception {
  private final List<String> lines;

  public SpecException(String location, String message) {
    super(location + ": " + message);
    this.lines = List.of(getMessage());
  }

  /** Several problems found together, one located line each (at least one). */
  public SpecException(List<String> lines) {
    super(String.join("\n", lines));
    if (lines.isEmpty()) {
      throw new IllegalArgumentException("a spec error needs at least one line");
    }
    this.lines = List.copyOf(lines);
  }

  /** The problems, one line each. */
  public List<String> lines() {
    return lines;
  }
}
