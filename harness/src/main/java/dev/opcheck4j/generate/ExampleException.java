package dev.opcheck4j.generate;

/** An example that does not fit its operator's schema; the message names file, line, op and argument. */
public final class ExampleException extends Exception {
  public ExampleException(String message) {
    super(message);
  }
}
