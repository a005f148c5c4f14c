package dev.opcheck4j.torch;

import java.util.Optional;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;

/**
 * What libtorch's CPU allocator fills new memory with: c10's flags {@code
 * caffe2_cpu_allocator_do_zero_fill} and {@code caffe2_cpu_allocator_do_junk_fill} (read by {@code
 * c10::alloc_cpu} on every allocation; junk is the 32-bit pattern {@code 0x7fedbeef}, a NaN as float32).
 * A worker's kernel calls run with zeros, so memory a kernel never wrote reads the same in every call
 * and no value check fails on it by luck; {@link #junk()} switches to junk for one call of {@code
 * memory.uninitialized}, which is where such reads are reported.
 */
public final class AllocatorFill implements AutoCloseable {
  private static final Pointer ZERO = flag("FLAGS_caffe2_cpu_allocator_do_zero_fill");
  private static final Pointer JUNK = flag("FLAGS_caffe2_cpu_allocator_do_junk_fill");
  private static volatile boolean zeros;

  private AllocatorFill() {}

  /** Why the fill cannot be chosen in this process, or empty when it can. */
  public static Optional<String> unavailable() {
    return ZERO == null || JUNK == null
        ? Optional.of("libc10 exports no caffe2_cpu_allocator_do_zero_fill / do_junk_fill flag in this libtorch")
        : Optional.empty();
  }

  /** Every allocation from now on is zero-filled (once per process; idempotent). */
  public static void zerosByDefault() {
    if (!zeros && unavailable().isEmpty()) {
      set(JUNK, false);
      set(ZERO, true);
      zeros = true;
    }
  }

  /** Fills every allocation with junk until closed, then with zeros again. */
  public static AllocatorFill junk() {
    set(ZERO, false);
    set(JUNK, true);
    return new AllocatorFill();
  }

  @Override
  public void close() {
    set(JUNK, false);
    set(ZERO, true);
    zeros = true;
  }

  private static void set(Pointer flag, boolean on) {
    Pointer.memset(flag, on ? 1 : 0, 1);
  }

  private static Pointer flag(String symbol) {
    try {
      return Loader.addressof(symbol);
    } catch (RuntimeException | UnsatisfiedLinkError e) {
      return null;
    }
  }
}
