package dev.opcheck4j.spec;

/** A spec file that cannot be used; the message starts with {@code file:line:column:}. */
public final class SpecException extends Exception {
  public SpecException(String location, String message) {
    super(location + ": " + message);
  }
}
