package dev.opcheck4j.spec;

import java.util.List;
import java.util.Map;

/**
 * A value from a spec file, with where it was written (for errors as {@code file:line:column}).
 *
 * @param value null, Boolean, Long, Double, String, {@code List<SpecValue>} or {@code Map<String, SpecValue>}
 * @param location {@code file:line:column}
 */
public record SpecValue(Object value, String location) {

  public boolean isNull() {
    return value == null;
  }

  public boolean isNumber() {
    return value instanceof Long || value instanceof Double;
  }

  public boolean isInteger() {
    return value instanceof Long;
  }

  public boolean isString() {
    return value instanceof String;
  }

  public boolean isBoolean() {
    return value instanceof Boolean;
  }

  public boolean isList() {
    return value instanceof List;
  }

  public boolean isObject() {
    return value instanceof Map;
  }

  @SuppressWarnings("unchecked")
  public List<SpecValue> list() {
    return (List<SpecValue>) value;
  }

  @SuppressWarnings("unchecked")
  public Map<String, SpecValue> object() {
    return (Map<String, SpecValue>) value;
  }

  public double number() {
    return ((Number) value).doubleValue();
  }

  public String describe() {
    if (value == null) {
      return "null";
    }
    if (isList()) {
      return "an array";
    }
    if (isObject()) {
      return "an object";
    }
    if (isString()) {
      return "the string " + quote((String) value);
    }
    return value.toString();
  }

  /** The longest text of a value quoted in a message; a longer one is cut and its length said. */
  public static final int QUOTED = 80;

  /**
   * {@code text} in double quotes for a one-line message: control characters (and quotes) escaped,
   * at most {@link #QUOTED} characters of it, then its whole length when it was cut.
   */
  public static String quote(String text) {
    StringBuilder sb = new StringBuilder("\"");
    int n = Math.min(text.length(), QUOTED);
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
              || Character.isSurrogate(c) && !(Character.isHighSurrogate(c) && i + 1 < n
                  && Character.isLowSurrogate(text.charAt(i + 1)) || Character.isLowSurrogate(c) && i > 0
                  && Character.isHighSurrogate(text.charAt(i - 1)))) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append(text.length() > n ? "…\"" : "\"");
    if (text.length() > n) {
      sb.append(" (").append(text.length()).append(" characters)");
    }
    return sb.toString();
  }
}
