package dev.opcheck4j.run.link;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A new file of a fixed size, written in full and then mapped for writing: the worker's step file and
 * answer log. A mapping of a file whose blocks were never written is backed by nothing until a page is
 * touched, so on a full disk the first touch killed the worker ({@code InternalError} from an unsafe memory
 * access), and each replacement after it; written first, a full disk fails here, as an {@link IOException}.
 */
final class MappedFile {
  private static final int CHUNK = 64 << 10;

  private MappedFile() {}

  /** {@code file}, emptied, {@code size} zero bytes written to it, mapped for reading and writing. */
  static MappedByteBuffer create(Path file, int size) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer zeros = ByteBuffer.allocate(Math.min(size, CHUNK));
      for (long at = 0; at < size; ) {
        zeros.clear().limit((int) Math.min(zeros.capacity(), size - at));
        at += ch.write(zeros, at);
      }
      return ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
    }
  }
}
