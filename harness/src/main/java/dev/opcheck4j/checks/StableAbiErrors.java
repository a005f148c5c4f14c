package dev.opcheck4j.checks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The message a stable-ABI kernel's error really had. A library built for the stable ABI of 2.10-2.12
 * gets only "API call failed at ops.h, line N" across it; libtorch's shim prints the original ("Exception
 * in aoti_torch: DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes") to stderr, and
 * a library built for 2.13 or later prints it too, as "Exception across libtorch C API boundary: ...". In a
 * worker, stderr is a log file, so the line written during the call can be read back.
 */
final class StableAbiErrors {
  private static final Path STDERR = Path.of("/proc/self/fd/2");
  /** stderr's file, opened once: its size is then one fstat, where a path under /proc costs a lookup per call. */
  private static final FileChannel FILE = open();
  private static final Pattern SHIM = Pattern.compile(
      "Exception (?:in aoti_torch|across libtorch C API boundary): (?:\\[enforce fail at [^\\]]*\\] (?:err == 0\\. )?)?(.*)");

  private StableAbiErrors() {}

  private static FileChannel open() {
    try {
      return Files.isRegularFile(STDERR) ? FileChannel.open(STDERR, StandardOpenOption.READ) : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Where stderr ends now; -1 when it is not a file. */
  static long mark() {
    if (FILE == null) {
      return -1;
    }
    try {
      return FILE.size();
    } catch (IOException e) {
      return -1;
    }
  }

  /** The shim's message written to stderr after {@code mark}, if any. */
  static Optional<String> since(long mark) {
    if (mark < 0) {
      return Optional.empty();
    }
    try {
      long end = Math.min(FILE.size(), mark + 64 * 1024);
      if (end <= mark) {
        return Optional.empty();
      }
      ByteBuffer buf = ByteBuffer.allocate((int) (end - mark));
      while (buf.hasRemaining() && FILE.read(buf, mark + buf.position()) > 0) {
        // positional reads: the channel is shared and has no position of its own to keep
      }
      Matcher m = SHIM.matcher(new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8));
      return m.find() ? Optional.of(m.group(1).strip()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
