package dev.opcheck4j.torch;

import org.bytedeco.javacpp.BytePointer;

/** Reads C++ strings from JavaCPP, where an empty std::string may arrive as a null pointer. */
public final class NativeStrings {
  private NativeStrings() {}

  static String of(BytePointer p) {
    return p == null || p.isNull() ? "" : p.getString();
  }

  /**
   * The first line of a libtorch error message (the rest is a C++ stack trace); "(no message)" for
   * null or blank.
   */
  public static String firstLine(String message) {
    if (message == null || message.isBlank()) {
      return "(no message)";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).strip();
  }
}
