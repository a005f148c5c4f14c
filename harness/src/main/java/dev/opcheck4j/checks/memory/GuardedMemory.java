package dev.opcheck4j.checks.memory;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.Optional;
import jdk.incubator.foreign.CLinker;
import jdk.incubator.foreign.FunctionDescriptor;
import jdk.incubator.foreign.MemoryAddress;
import jdk.incubator.foreign.MemorySegment;
import jdk.incubator.foreign.ResourceScope;
import jdk.incubator.foreign.SymbolLookup;

/**
 * Bytes of host memory placed against a page no access is allowed to ({@code mmap}, then {@code
 * mprotect(PROT_NONE)}): the storage ends where the guard page begins, or begins where it ends. The
 * rest of the mapping around the storage is filled with a canary byte, so a write there is seen after
 * the call. Only in a worker JVM, which is started with the foreign-function options of {@link #OPTIONS}.
 *
 * <p>Alignment: libtorch's CPU allocator promises 64-byte alignment ({@code c10::gAlignment}). The
 * storage that starts at a guard page starts on a page boundary, so that call keeps the promise. The
 * storage that ends at a guard page ends exactly there, so a read of one element past the end faults
 * whatever the size; its start is then aligned to the element size only (to 64 bytes when the size is
 * a multiple of 64), as the data of a view at an offset ({@code x[1:]}) is, which a kernel must accept
 * as well.
 */
final class GuardedMemory implements AutoCloseable {
  /** The options a JVM needs for this class to work (Java 17: the foreign API is an incubator module). */
  static final java.util.List<String> OPTIONS =
      java.util.List.of("--add-modules", "jdk.incubator.foreign", "--enable-native-access=ALL-UNNAMED");

  /** Where the guard page is. */
  enum Side {
    /** right after the storage's last byte */
    END("past the end"),
    /** right before the storage's first byte */
    START("before the start"),
    /** right before the storage's first byte, and the storage's own pages made read-only after it is filled */
    READ_ONLY("written"),
    /** the pages of memory the kernel allocated and freed during the call, inaccessible once freed */
    FREED("used after it was freed");

    final String direction;

    Side(String direction) {
      this.direction = direction;
    }
  }

  private final MemoryAddress base;
  private final long mapped;
  private final long storage;
  private final long nbytes;
  private final long guard;
  private final byte canary;

  private GuardedMemory(MemoryAddress base, long mapped, long storage, long nbytes, long guard, byte canary) {
    this.base = base;
    this.mapped = mapped;
    this.storage = storage;
    this.nbytes = nbytes;
    this.guard = guard;
    this.canary = canary;
  }

  /** Why guard pages cannot be made in this JVM, or empty when they can. */
  static Optional<String> unavailable() {
    // without the module, linking Libc itself throws NoClassDefFoundError (its verifier loads the
    // foreign API's types), before its initializer could catch anything: ask the boot layer first
    if (ModuleLayer.boot().findModule("jdk.incubator.foreign").isEmpty()) {
      return Optional.of("guard pages need a JVM started with " + String.join(" ", OPTIONS)
          + " (this one lacks jdk.incubator.foreign)");
    }
    return Libc.PROBLEM;
  }

  /**
   * {@code nbytes} (more than 0) of storage with the guard page on {@code side}, and {@code canary} in
   * every other byte of the mapping.
   */
  static GuardedMemory map(long nbytes, Side side, byte canary) {
    long page = Libc.PAGE;
    // one page of canary before the storage at the end side, so a read before its start is seen too
    long data = roundUp(nbytes, page) + page;
    long mapped = data + page;
    MemoryAddress base = Libc.mmap(mapped);
    long b = base.toRawLongValue();
    long guard = side == Side.END ? b + data : b;
    Libc.protect(guard, page, Libc.PROT_NONE);
    long storage = side == Side.END ? b + data - nbytes : b + page;
    long dataStart = side == Side.END ? b : b + page;
    segment(dataStart, data).fill(canary);
    return new GuardedMemory(base, mapped, storage, nbytes, guard, canary);
  }

  /** Makes the storage's pages (a {@link Side#READ_ONLY} mapping's) read-only: a write there faults. */
  void protectReadOnly() {
    Libc.protect(storage, mapped - Libc.PAGE, Libc.PROT_READ);
  }

  /** The storage's first byte. */
  long storage() {
    return storage;
  }

  /** The guard page's first byte. */
  long guardFrom() {
    return guard;
  }

  long guardTo() {
    return guard + Libc.PAGE;
  }

  /** The bytes outside the storage that no longer hold the canary: first and last, or empty when all do. */
  Optional<long[]> damage(Side side) {
    long dataStart = side == Side.END ? base.toRawLongValue() : base.toRawLongValue() + Libc.PAGE;
    long dataEnd = side == Side.END ? guard : base.toRawLongValue() + mapped;
    long first = -1;
    long last = -1;
    MemorySegment before = segment(dataStart, storage - dataStart);
    MemorySegment after = segment(storage + nbytes, dataEnd - storage - nbytes);
    for (MemorySegment s : new MemorySegment[] {before, after}) {
      if (s == null || intact(s)) {
        continue;
      }
      for (long i = 0; i < s.byteSize(); i++) {
        if (jdk.incubator.foreign.MemoryAccess.getByteAtOffset(s, i) != canary) {
          long at = s.address().toRawLongValue() + i - storage;
          first = first == -1 ? at : first;
          last = at;
        }
      }
    }
    return first == -1 ? Optional.empty() : Optional.of(new long[] {first, last});
  }

  /**
   * Whether every byte of {@code s} holds the canary: one bulk comparison, where a byte at a time was a
   * sixth of a worker's time on a 200-op library (every call of the check looks at two pages or more).
   */
  private boolean intact(MemorySegment s) {
    byte[] expected = new byte[Math.toIntExact(s.byteSize())];
    java.util.Arrays.fill(expected, canary);
    return s.mismatch(MemorySegment.ofArray(expected)) == -1;
  }

  @Override
  public void close() {
    Libc.munmap(base, mapped);
  }

  /** The {@code size} bytes at {@code address}; null when there are none. */
  private static MemorySegment segment(long address, long size) {
    return size == 0 ? null : MemoryAddress.ofLong(address).asSegment(size, ResourceScope.globalScope());
  }

  private static long roundUp(long n, long to) {
    return (n + to - 1) / to * to;
  }

  /** mmap, mprotect and munmap, bound once. */
  private static final class Libc {
    static final int PROT_NONE = 0;
    static final int PROT_READ = 1;
    private static final int PROT_READ_WRITE = 3;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x22;
    static final Optional<String> PROBLEM;
    static final long PAGE;
    private static final MethodHandle MMAP;
    private static final MethodHandle MPROTECT;
    private static final MethodHandle MUNMAP;

    static {
      MethodHandle mmap = null;
      MethodHandle mprotect = null;
      MethodHandle munmap = null;
      long page = 4096;
      String problem = null;
      try {
        CLinker c = CLinker.getInstance();
        SymbolLookup libc = CLinker.systemLookup();
        mmap = c.downcallHandle(libc.lookup("mmap").orElseThrow(),
            MethodType.methodType(MemoryAddress.class, MemoryAddress.class, long.class, int.class, int.class, int.class,
                long.class),
            FunctionDescriptor.of(CLinker.C_POINTER, CLinker.C_POINTER, CLinker.C_LONG, CLinker.C_INT, CLinker.C_INT,
                CLinker.C_INT, CLinker.C_LONG));
        mprotect = c.downcallHandle(libc.lookup("mprotect").orElseThrow(),
            MethodType.methodType(int.class, MemoryAddress.class, long.class, int.class),
            FunctionDescriptor.of(CLinker.C_INT, CLinker.C_POINTER, CLinker.C_LONG, CLinker.C_INT));
        munmap = c.downcallHandle(libc.lookup("munmap").orElseThrow(),
            MethodType.methodType(int.class, MemoryAddress.class, long.class),
            FunctionDescriptor.of(CLinker.C_INT, CLinker.C_POINTER, CLinker.C_LONG));
        MethodHandle getpagesize = c.downcallHandle(libc.lookup("getpagesize").orElseThrow(),
            MethodType.methodType(int.class), FunctionDescriptor.of(CLinker.C_INT));
        page = (int) getpagesize.invokeExact();
      } catch (Throwable e) {
        // the parent JVM, or a JVM started without OPTIONS: the check says Skipped with this
        problem = "guard pages need a JVM started with " + String.join(" ", OPTIONS) + " (" + e + ")";
      }
      PROBLEM = Optional.ofNullable(problem);
      PAGE = page;
      MMAP = mmap;
      MPROTECT = mprotect;
      MUNMAP = munmap;
    }

    static MemoryAddress mmap(long size) {
      try {
        MemoryAddress a = (MemoryAddress) MMAP.invokeExact(MemoryAddress.NULL, size, PROT_READ_WRITE,
            MAP_PRIVATE_ANONYMOUS, -1, 0L);
        if (a.toRawLongValue() == -1L) {
          throw new IllegalStateException("mmap of " + size + " bytes failed");
        }
        return a;
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable e) {
        throw new IllegalStateException(e);
      }
    }

    static void protect(long address, long size, int prot) {
      int r;
      try {
        r = (int) MPROTECT.invokeExact(MemoryAddress.ofLong(address), size, prot);
      } catch (Throwable e) {
        throw new IllegalStateException(e);
      }
      if (r != 0) {
        throw new IllegalStateException("mprotect(" + prot + ") failed");
      }
    }

    static void munmap(MemoryAddress a, long size) {
      try {
        int r = (int) MUNMAP.invokeExact(a, size);
      } catch (Throwable e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
