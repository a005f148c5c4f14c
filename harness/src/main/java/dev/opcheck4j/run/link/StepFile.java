package dev.opcheck4j.run.link;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * The step a worker is at, in a small file mapped into its memory: a write is a few stores into the
 * page cache (no system call per step), and the page outlives a worker the kernel kills, so the
 * parent reads the last step of a dead worker. The worker makes it beside its log ({@code
 * worker-N.step}); the parent maps it too once the worker is ready and deletes its name, so the page
 * lives only as long as one of them maps it and nothing is left on disk, however the run ends.
 */
public final class StepFile {
  /** A page: enough for a memory.bounds step naming the guard pages of every argument and allocation it tells. */
  private static final int SIZE = 4096;
  private final MappedByteBuffer page;

  private StepFile(MappedByteBuffer page) {
    this.page = page;
  }

  /** Where the step of the worker logging to {@code log} is kept. */
  public static Path beside(Path log) {
    return log.resolveSibling(log.getFileName().toString().replaceFirst("\\.log$", "") + ".step");
  }

  public static StepFile create(Path file) throws IOException {
    return new StepFile(MappedFile.create(file, SIZE));
  }

  /** Keeps {@code step}: the text first, then its length, so a reader never sees a length with older text. */
  public void write(String step) {
    byte[] b = step.getBytes(StandardCharsets.UTF_8);
    int n = Math.min(b.length, SIZE - 4);
    page.put(4, b, 0, n);
    page.putInt(0, n);
  }

  /** The parent's side: the step file the worker made, mapped to be read (after its name is deleted too). */
  public static Optional<StepFile> open(Path file) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return ch.size() < SIZE ? Optional.empty() : Optional.of(new StepFile(ch.map(FileChannel.MapMode.READ_ONLY, 0, SIZE)));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The last step kept, if any. */
  public Optional<String> last() {
    int n = page.getInt(0);
    if (n <= 0 || n > SIZE - 4) {
      return Optional.empty();
    }
    byte[] b = new byte[n];
    page.get(4, b);
    return Optional.of(new String(b, StandardCharsets.UTF_8));
  }

  /** The last step kept in {@code file}, if any. */
  public static Optional<String> read(Path file) {
    try {
      byte[] all = Files.readAllBytes(file);
      if (all.length < 4) {
        return Optional.empty();
      }
      int n = java.nio.ByteBuffer.wrap(all).getInt(0);
      return n <= 0 || n > all.length - 4 ? Optional.empty()
          : Optional.of(new String(all, 4, n, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
