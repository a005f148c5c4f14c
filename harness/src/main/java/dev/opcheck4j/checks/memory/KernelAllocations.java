package dev.opcheck4j.checks.memory;

import dev.opcheck4j.checks.OpCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one call of the kernel allocated under the {@link GuardedAllocator}, each allocation named as a
 * report names it: the output whose storage it is ({@code output 0}, {@code output 1[2]} for an element
 * of a returned list), or a temporary the kernel freed before returning.
 *
 * @param named each allocation, in the order the kernel made it, with its name
 */
record KernelAllocations(List<Named> named) {
  /** A temporary: freed by the kernel before it returned. */
  static final String TEMPORARY = "a temporary the kernel allocated";
  /** Kept alive after the call, but no output's storage (a cache, a global). */
  static final String KEPT = "memory the kernel allocated and kept";
  /**
   * The arena beyond the guard pages told by name: what a call allocated that the survey did not see
   * (or past the first few), or whose size differed.
   */
  static final String UNNAMED = "memory the kernel allocated";
  // the step file holds 4 KB (two ranges a temporary, one an output): past this many, allocations are named by the
  // arena alone
  private static final int TOLD_AT_MOST = 8;

  /** One allocation and its name. */
  record Named(GuardedAllocator.Allocation allocation, String name) {}

  /** No allocation (a call without the guarded allocator). */
  static KernelAllocations none() {
    return new KernelAllocations(List.of());
  }

  /** What was guarded, for a passed result: the outputs by name, and how many temporaries. */
  String summary() {
    List<String> parts = new ArrayList<>(outputs());
    long temporaries = named.stream().filter(n -> n.name().equals(TEMPORARY)).count();
    if (temporaries > 0) {
      parts.add(temporaries + (temporaries == 1 ? " temporary" : " temporaries"));
    }
    long kept = named.size() - outputs().size() - temporaries;
    if (kept > 0) {
      parts.add(kept + " kept");
    }
    return String.join(", ", parts);
  }

  /** The allocations of a closed scope, named after the outputs the call returned. */
  static KernelAllocations of(GuardedAllocator.Scope scope, List<OpCall.Output> outputs) {
    List<Named> named = new ArrayList<>();
    for (GuardedAllocator.Allocation a : scope.allocations()) {
      named.add(new Named(a, nameOf(a, outputs)));
    }
    return new KernelAllocations(List.copyOf(named));
  }

  private static String nameOf(GuardedAllocator.Allocation a, List<OpCall.Output> outputs) {
    if (a.freed()) {
      return TEMPORARY;
    }
    for (OpCall.Output o : outputs) {
      if (o.tensor().numel() > 0 && o.tensor().is_cpu() && a.holds(o.tensor().const_data_ptr().address())) {
        return o.label();
      }
    }
    return KEPT;
  }

  /** The sizes, in order, that a later call is expected to allocate again. */
  List<Long> sizes() {
    return named.stream().map(n -> n.allocation().nbytes()).toList();
  }

  /** The output names, in order, of those allocations that are outputs. */
  List<String> outputs() {
    return named.stream().map(Named::name).filter(n -> n.startsWith("output ")).toList();
  }

  /**
   * The guard pages a scope installed with {@link #sizes()} gives these allocations, named, then the
   * whole arena (what the call allocates beyond them), to tell in the step before the call.
   */
  List<GuardRanges.Range> told(GuardedAllocator.Scope scope) {
    GuardedMemory.Side side = scope.mode().side();
    List<GuardRanges.Range> ranges = new ArrayList<>();
    for (int i = 0; i < Math.min(Math.min(named.size(), scope.guards().size()), TOLD_AT_MOST); i++) {
      long[] g = scope.guards().get(i);
      ranges.add(new GuardRanges.Range(named.get(i).name(), side, g[0], g[1], true));
      if (named.get(i).name().equals(TEMPORARY)) {
        // freed during the call, its pages fault after: an access there is a use after free
        ranges.add(new GuardRanges.Range(TEMPORARY, GuardedMemory.Side.FREED, g[2], g[3], true));
      }
    }
    ranges.add(new GuardRanges.Range(UNNAMED, side, scope.arenaFrom(), scope.arenaTo(), true));
    return ranges;
  }

  /** The first allocation whose canary bytes the call overwrote, as a finding's cause and text. */
  Optional<GuardedArguments.Damage> damage() {
    for (Named n : named) {
      GuardedAllocator.Allocation a = n.allocation();
      if (a.damaged()) {
        boolean before = a.firstDamaged() < 0;
        // a survey keeps a freed temporary's pages, filled with the canary: a byte of its own changed after
        boolean afterFree = !before && a.firstDamaged() < a.nbytes();
        String where = before ? "from " + -a.firstDamaged() + " byte(s) before its first byte"
            : afterFree ? "at byte " + a.firstDamaged() + " after the kernel freed it"
            : "from byte " + (a.firstDamaged() - a.nbytes()) + " past its end";
        GuardedMemory.Side side = before ? GuardedMemory.Side.START
            : afterFree ? GuardedMemory.Side.FREED : GuardedMemory.Side.END;
        return Optional.of(new GuardedArguments.Damage(GuardRanges.allocatedCause(n.name(), side),
            n.name() + ", " + side.direction + ": written " + where + " (" + a.nbytes() + " bytes, allocated by the"
                + " kernel; " + (afterFree ? "its bytes changed after it was freed)"
                    : "the canary bytes around it changed)")));
      }
    }
    return Optional.empty();
  }
}
