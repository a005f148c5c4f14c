package dev.opcheck4j.generate;

/**
 * What a tensor of a shape and dtype takes in memory, and whether it fits this machine: the one limit on the
 * sizes a spec or a variant may ask for, said before anything is allocated.
 */
final class TensorFootprint {
  private TensorFootprint() {}

  /** The number of elements, or -1 when it overflows a long. */
  static long numel(long[] shape) {
    long n = 1;
    try {
      for (long s : shape) {
        n = Math.multiplyExact(n, s);
      }
    } catch (ArithmeticException e) {
      return -1;
    }
    return n;
  }

  /**
   * Refuses a tensor whose values (drawn in float64, then converted) would not fit in half of this
   * machine's memory: an input error naming the bytes, prefixed by {@code where}.
   */
  static void checkFits(long[] shape, String dtype, String where) throws ExampleException {
    long limit = MEMORY / 2;
    long bytes;
    try {
      long numel = 1;
      for (long s : shape) {
        numel = Math.multiplyExact(numel, s);
      }
      bytes = Math.multiplyExact(numel, 8 + elementSize(dtype));
    } catch (ArithmeticException e) {
      bytes = Long.MAX_VALUE;
    }
    if (bytes > limit) {
      throw new ExampleException(where + "needs " + (bytes == Long.MAX_VALUE ? "more than 2^63" : bytes)
          + " bytes for " + dtype + shapeText(shape) + " (its values are drawn in float64 first), more than "
          + limit + " bytes (half of this machine's memory): use smaller sizes");
    }
  }

  private static final long MEMORY = physicalMemory();

  private static long physicalMemory() {
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getTotalMemorySize();
    }
    return Runtime.getRuntime().maxMemory() * 4;
  }

  /** A shape as {@code [2, 3]}, the middle of a long one left out. */
  static String shapeText(long[] shape) {
    if (shape.length <= 8) {
      return java.util.Arrays.toString(shape);
    }
    return "[" + shape[0] + ", " + shape[1] + ", … " + (shape.length - 4) + " more …, " + shape[shape.length - 2] + ", "
        + shape[shape.length - 1] + "]";
  }

  static int elementSize(String dtype) {
    return switch (dtype) {
      case "float64", "int64", "complex64" -> 8;
      case "float32", "int32" -> 4;
      case "float16", "bfloat16", "int16" -> 2;
      default -> 1;
    };
  }
}
