package dev.opcheck4j.run.worker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jdk.incubator.foreign.MemoryAccess;
import jdk.incubator.foreign.MemoryAddress;
import jdk.incubator.foreign.MemorySegment;
import jdk.incubator.foreign.ResourceScope;

/**
 * The source locations UBSan reports, armed again before each unit: gcc's UBSan reports a location once per process
 * (its handler sets the location's column to {@code ~0} as it reports, in the {@code SourceLocation {const char*
 * file; u32 line; u32 column}} the instrumented code passes it, and skips a location so marked). Without this a
 * worker reports a defect once, and shrinking the input that showed it, which runs in the same worker, never sees
 * it again. The locations are found once, as the worker starts: in each library built with UBSan, every 16 bytes of
 * its writable data that hold a pointer into its own mappings to a source file's name, then a line and a column.
 */
final class UbsanLocations {
  static final UbsanLocations NONE = new UbsanLocations(new long[0], new int[0]);
  private static final int DISABLED = -1;

  private final long[] columns;
  private final int[] values;

  private UbsanLocations(long[] columns, int[] values) {
    this.columns = columns;
    this.values = values;
  }

  /** The locations of {@code libraries} (those built with UBSan), as this process loaded them. */
  static UbsanLocations of(List<Path> libraries) {
    List<Long> at = new ArrayList<>();
    List<Integer> was = new ArrayList<>();
    try {
      List<String> maps = Files.readAllLines(Path.of("/proc/self/maps"));
      for (Path library : libraries) {
        Path real = library.toRealPath();
        List<long[]> readable = new ArrayList<>();
        List<long[]> writable = new ArrayList<>();
        for (String line : maps) {
          String[] f = line.trim().split("\\s+", 6);
          if (f.length == 6 && Path.of(f[5]).equals(real) && f[1].startsWith("r")) {
            String[] range = f[0].split("-");
            long[] r = {Long.parseUnsignedLong(range[0], 16), Long.parseUnsignedLong(range[1], 16)};
            readable.add(r);
            if (f[1].startsWith("rw")) {
              writable.add(r);
            }
          }
        }
        for (long[] w : writable) {
          MemorySegment data = MemoryAddress.ofLong(w[0]).asSegment(w[1] - w[0], ResourceScope.globalScope());
          for (long off = 0; off + 16 <= data.byteSize(); off += 8) {
            long file = MemoryAccess.getLongAtOffset(data, off);
            int line = MemoryAccess.getIntAtOffset(data, off + 8);
            int column = MemoryAccess.getIntAtOffset(data, off + 12);
            if (line > 0 && line < 10_000_000 && column > 0 && column < 10_000 && sourceName(file, readable)) {
              at.add(w[0] + off + 12);
              was.add(column);
            }
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      // none found: each location is reported once, as gcc's UBSan does
    }
    return new UbsanLocations(at.stream().mapToLong(Long::longValue).toArray(),
        was.stream().mapToInt(Integer::intValue).toArray());
  }

  /** Whether {@code address}, inside one of the library's readable mappings, holds a source file's name. */
  private static boolean sourceName(long address, List<long[]> readable) {
    for (long[] r : readable) {
      if (address >= r[0] && address < r[1]) {
        MemorySegment s = MemoryAddress.ofLong(address).asSegment(Math.min(512, r[1] - address), ResourceScope.globalScope());
        byte[] b = new byte[(int) s.byteSize()];
        MemorySegment.ofArray(b).copyFrom(s);
        int end = 0;
        while (end < b.length && b[end] >= 0x20 && b[end] < 0x7f) {
          end++;
        }
        if (end < 3 || end == b.length || b[end] != 0) {
          return false;
        }
        String name = new String(b, 0, end, StandardCharsets.US_ASCII);
        return name.matches(".*\\.(c|cc|cpp|cxx|cu|h|hh|hpp|hxx|inc|inl)");
      }
    }
    return false;
  }

  /** Arms again each location UBSan disabled as it reported it. */
  void rearm() {
    for (int i = 0; i < columns.length; i++) {
      MemorySegment c = MemoryAddress.ofLong(columns[i]).asSegment(4, ResourceScope.globalScope());
      if (MemoryAccess.getInt(c) == DISABLED) {
        MemoryAccess.setInt(c, values[i]);
      }
    }
  }

  /** How many locations were found. */
  int size() {
    return columns.length;
  }
}
