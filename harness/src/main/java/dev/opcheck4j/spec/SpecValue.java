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
      return "the string \"" + value + "\"";
    }
    return value.toString();
  }
}
