package dev.opcheck4j.cli;

/** A command line that cannot be run; the message is the one line shown to the user. */
final class UsageException extends Exception {
  UsageException(String message) {
    super(message);
  }
}
