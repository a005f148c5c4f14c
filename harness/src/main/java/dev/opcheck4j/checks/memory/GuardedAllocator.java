package dev.opcheck4j.checks.memory;

import dev.opcheck4j.torch.Companion;
import dev.opcheck4j.torch.NativeStrings;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.IValueVector;

/**
 * The companion's guarded CPU allocator ({@code native-ops/src/main/companion/guarded_allocator.cpp}),
 * guarding for one call of {@code memory.bounds} and passing allocations through again after it ({@link
 * #install}, a scope; it stays the CPU allocator from its first use on, so that memory raw-allocated under it
 * can be raw-deallocated after, and the other way round): each allocation the kernel makes (its outputs, its
 * temporaries) lies against a guard page, or, in a survey, between canary pages. Java reaches it through the dispatcher, as the {@code opcheck4j::guarded_allocator_*}
 * operators.
 */
final class GuardedAllocator {
  /** Where an allocation lies in its slot. */
  enum Mode {
    /** between canary pages, no guard page next to it: a first call that learns what the kernel allocates */
    SURVEY,
    /** ending within 64 bytes of a guard page after it (the bytes between hold the canary) */
    END,
    /** starting right after a guard page */
    START;

    GuardedMemory.Side side() {
      return this == START ? GuardedMemory.Side.START : GuardedMemory.Side.END;
    }
  }

  /**
   * One allocation a call made.
   *
   * @param address its first byte
   * @param nbytes its size
   * @param firstDamaged the first byte around it that no longer holds the canary, relative to {@code
   *     address} (negative: before it), or {@link Long#MIN_VALUE} when none
   * @param lastDamaged the last such byte
   * @param freed whether the kernel freed it before returning (a temporary)
   */
  record Allocation(long address, long nbytes, long firstDamaged, long lastDamaged, boolean freed) {
    boolean damaged() {
      return firstDamaged != Long.MIN_VALUE;
    }

    /** Whether {@code at} is one of its bytes. */
    boolean holds(long at) {
      return Long.compareUnsigned(at, address) >= 0 && Long.compareUnsigned(at, address + nbytes) < 0;
    }
  }

  private static Optional<String> problem;

  private GuardedAllocator() {}

  /**
   * Why the allocator cannot be installed in this process (the companion is not loaded, or its self-test
   * failed), or empty when it can. The self-test runs once.
   */
  static synchronized Optional<String> unavailable() {
    if (problem == null) {
      problem = check();
    }
    return problem;
  }

  private static Optional<String> check() {
    if (Companion.state() instanceof Companion.Unavailable u) {
      return Optional.of("the companion library is unavailable: " + u.reason());
    }
    try {
      long ok = call("opcheck4j::guarded_allocator_self_test").get(0).toInt();
      return ok == 1 ? Optional.empty() : Optional.of("the guarded allocator's self-test answered " + ok);
    } catch (RuntimeException e) {
      return Optional.of("the guarded allocator's self-test failed: " + NativeStrings.firstLine(e.getMessage()));
    }
  }

  /**
   * Installs the allocator in {@code mode} until the scope is closed. {@code expected}: the sizes the call
   * is expected to allocate, in order (from a survey), whose guard pages the scope tells.
   */
  static Scope install(Mode mode, List<Long> expected) {
    List<String> sizes = expected.stream().map(String::valueOf).toList();
    long[] told = call("opcheck4j::guarded_allocator_install", new IValue((long) mode.ordinal()),
        new IValue(String.join(" ", sizes))).get(0).toIntVector().get();
    List<long[]> guards = new ArrayList<>();
    for (int i = 2; i + 3 < told.length; i += 4) {
      guards.add(new long[] {told[i], told[i + 1], told[i + 2], told[i + 3]});
    }
    return new Scope(mode, told[0], told[1], guards);
  }

  /** One installation: closing it puts the previous allocator back and learns what was allocated. */
  static final class Scope implements AutoCloseable {
    private final Mode mode;
    private final long arenaFrom;
    private final long arenaTo;
    private final List<long[]> guards;
    private List<Allocation> allocations;

    private Scope(Mode mode, long arenaFrom, long arenaTo, List<long[]> guards) {
      this.mode = mode;
      this.arenaFrom = arenaFrom;
      this.arenaTo = arenaTo;
      this.guards = guards;
    }

    Mode mode() {
      return mode;
    }

    /** The address range every guarded allocation of the process lies in. */
    long arenaFrom() {
      return arenaFrom;
    }

    long arenaTo() {
      return arenaTo;
    }

    /** The guard page and the data pages, {from, to, dataFrom, dataTo}, of the i-th expected allocation. */
    List<long[]> guards() {
      return guards;
    }

    /** What the call allocated, in order; known once closed. */
    List<Allocation> allocations() {
      if (allocations == null) {
        throw new IllegalStateException("the scope is still open");
      }
      return allocations;
    }

    @Override
    public void close() {
      if (allocations != null) {
        return;
      }
      long[] r = call("opcheck4j::guarded_allocator_restore").get(0).toIntVector().get();
      List<Allocation> all = new ArrayList<>();
      for (int i = 0; i + 4 < r.length; i += 5) {
        all.add(new Allocation(r[i], r[i + 1], r[i + 2], r[i + 3], r[i + 4] != 0));
      }
      allocations = List.copyOf(all);
    }
  }

  private static IValueVector call(String op, IValue... args) {
    return CompanionOps.call(op, args);
  }
}
