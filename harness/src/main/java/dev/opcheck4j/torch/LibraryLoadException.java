package dev.opcheck4j.torch;

import java.nio.file.Path;
import java.util.Optional;

/** An op library that could not be used; the message names the file and, where known, the symbol. */
public final class LibraryLoadException extends Exception {
  private final Path path;
  private final transient Path log;

  public LibraryLoadException(Path path, String message) {
    this(path, message, null);
  }

  /** @param log the log of the worker that died loading it, kept as evidence (null: none) */
  public LibraryLoadException(Path path, String message, Path log) {
    super(message);
    this.path = path;
    this.log = log;
  }

  public Path path() {
    return path;
  }

  /** The log of the worker that died loading the library, which the run keeps; empty when none died. */
  public Optional<Path> log() {
    return Optional.ofNullable(log);
  }
}
