package dev.opcheck4j.torch;

import org.bytedeco.javacpp.BytePointer;

/** Reads C++ strings from JavaCPP, where an empty std::string may arrive as a null pointer. */
final class NativeStrings {
  private NativeStrings() {}

  static String of(BytePointer p) {
    return p == null || p.isNull() ? "" : p.getString();
  }
}
