package dev.opcheck4j.api;

import java.util.Objects;

/** One key/value line of a result, e.g. {@code expected: argument 'x' unchanged}; neither part is null. */
public record Fact(String key, String value) {
  public Fact {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
  }

  public static Fact of(String key, Object value) {
    return new Fact(key, String.valueOf(value));
  }
}
