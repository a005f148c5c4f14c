package dev.opcheck4j.checks;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The message a stable-ABI kernel's error really had. Across the stable ABI an exception arrives as
 * "API call failed at ops.h, line N"; libtorch's shim prints the original ("Exception in aoti_torch:
 * DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes") to stderr. In a
 * worker, stderr is a log file, so the line written during the call can be read back.
 */
final class StableAbiErrors {
  private static final Path STDERR = Path.of("/proc/self/fd/2");
  private static final boolean READABLE = Files.isRegularFile(STDERR);
  private static final Pattern SHIM = Pattern.compile("Exception in aoti_torch: (?:\\[enforce fail at [^\\]]*\\] (?:err == 0\\. )?)?(.*)");

  private StableAbiErrors() {}

  /** Where stderr ends now; -1 when it is not a file. */
  static long mark() {
    if (!READABLE) {
      return -1;
    }
    try {
      return Files.size(STDERR);
    } catch (IOException e) {
      return -1;
    }
  }

  /** The shim's message written to stderr after {@code mark}, if any. */
  static Optional<String> since(long mark) {
    if (mark < 0) {
      return Optional.empty();
    }
    try (RandomAccessFile f = new RandomAccessFile(STDERR.toFile(), "r")) {
      long end = Math.min(f.length(), mark + 64 * 1024);
      if (end <= mark) {
        return Optional.empty();
      }
      byte[] buf = new byte[(int) (end - mark)];
      f.seek(mark);
      f.readFully(buf);
      Matcher m = SHIM.matcher(new String(buf, StandardCharsets.UTF_8));
      return m.find() ? Optional.of(m.group(1).strip()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
