package dev.opcheck4j.checks.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.Cause;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The guard pages a worker tells in its step are read back by the parent, and a faulting address mapped to them. */
class GuardRangesTests {
  private static final GuardRanges RANGES = new GuardRanges(List.of(
      new GuardRanges.Range("x", GuardedMemory.Side.END, 0x7f0000001000L, 0x7f0000002000L),
      new GuardRanges.Range("out", GuardedMemory.Side.START, 0x7f0000005000L, 0x7f0000006000L),
      new GuardRanges.Range("xs[1]", GuardedMemory.Side.END, 0x7f0000009000L, 0x7f000000a000L),
      new GuardRanges.Range("output 1[0]", GuardedMemory.Side.END, 0x7e0000003000L, 0x7e0000004000L, true),
      new GuardRanges.Range(KernelAllocations.UNNAMED, GuardedMemory.Side.END, 0x7e0000000000L, 0x7f0000000000L, true)));

  @Test
  void theStepToldCarriesTheRangesAndShowsWithoutThem() {
    String step = "the cpu kernel, its tensor arguments ending at a guard page" + RANGES.told() + " for memory.bounds";
    assertEquals(RANGES, GuardRanges.in(step));
    assertEquals("the cpu kernel, its tensor arguments ending at a guard page for memory.bounds", GuardRanges.shown(step));
    assertEquals(new GuardRanges(List.of()), GuardRanges.in("the cpu kernel for determinism"));
  }

  @Test
  void aFaultInsideAGuardPageNamesItsArgumentAndSideAndOneOutsideNone() {
    assertEquals(Optional.of(new Cause.Contract(GuardRanges.RULE, "argument 'x', past the end")), RANGES.hit(0x7f0000001000L));
    assertEquals(Optional.of(new Cause.Contract(GuardRanges.RULE, "argument 'out', before the start")),
        RANGES.hit(0x7f0000005ffcL));
    assertEquals(Optional.of(new Cause.Contract(GuardRanges.RULE, "argument 'xs[1]', past the end")),
        RANGES.hit(0x7f0000009000L));
    assertEquals(Optional.empty(), RANGES.hit(0x7f0000002000L));
    // what the kernel allocated: a guard page told by name first, then the arena beyond it
    assertEquals(Optional.of(new Cause.Contract(GuardRanges.RULE, "output 1[0], past the end")), RANGES.hit(0x7e0000003008L));
    assertEquals(Optional.of(new Cause.Contract(GuardRanges.RULE, "memory the kernel allocated, past the end")),
        RANGES.hit(0x7e0000009000L));
    assertEquals(Optional.empty(), RANGES.hit(0L));
  }
}
