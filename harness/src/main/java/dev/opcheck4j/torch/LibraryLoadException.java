package dev.opcheck4j.torch;

import java.nio.file.Path;

/** An op library that could not be used; the message names the file and, where known, the symbol. */
public final class LibraryLoadException extends Exception {
  private final Path path;

  public LibraryLoadException(Path path, String message) {
    super(message);
    this.path = path;
  }

  public Path path() {
    return path;
  }
}
