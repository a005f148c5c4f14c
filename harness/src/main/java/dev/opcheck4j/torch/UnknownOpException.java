package dev.opcheck4j.torch;

import java.util.List;

/** An operator name that is not registered; carries the nearest registered names. */
public final class UnknownOpException extends Exception {
  private final String name;
  private final List<String> suggestions;

  public UnknownOpException(String name, List<String> suggestions, String where) {
    super(
        "operator "
            + name
            + " is not registered"
            + (where.isEmpty() ? "" : " by " + where)
            + (suggestions.isEmpty() ? "" : "; did you mean " + String.join(", ", suggestions) + "?"));
    this.name = name;
    this.suggestions = List.copyOf(suggestions);
  }

  public String name() {
    return name;
  }

  public List<String> suggestions() {
    return suggestions;
  }
}
