package dev.opcheck4j.checks.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.CorpusRun;
import dev.opcheck4j.testing.NativeOps;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The memory corpus (native-ops' memory_ops.cpp, issue 31): each bad op fails exactly the memory check
 * its {@code // EXPECT:} marker names, its good twin passes everything, and the findings name what an
 * author needs: the argument and the side of an out-of-bounds access, the smallest input that leaves an
 * output element unwritten.
 */
class MemoryCorpusTests {
  private static final String SPEC = "memory/memory_ops.json";
  private static CorpusRun corpus;

  @BeforeAll
  static void run() throws Exception {
    // the default number of tries: memory.uninitialized runs on a tenth of them, and with fewer the
    // tenth is only the edge cases (sizes 0 and 1), which double_pairs_scalar_path gets right
    corpus = CorpusRun.of(SPEC, 100);
  }

  /** The result of {@code check} on {@code op}'s example: failed, its cause a fault with {@code rule} about {@code subject}. */
  private static CheckResult faulted(String op, String check, String rule, String subject) {
    CheckResult r = corpus.one(op, check, "cpu");
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    assertEquals(new Cause.Contract(rule, subject), r.finding().cause());
    return r;
  }

  @TestFactory
  Stream<DynamicTest> eachOpHasFindingsInExactlyItsMarkedChecks() throws Exception {
    List<String> ops = SpecReader.read(NativeOps.spec(SPEC)).ops().stream().map(o -> o.op()).toList();
    assertFalse(ops.isEmpty());
    return corpus.eachOpHasFindingsInExactlyItsMarkedChecks("memory_ops.cpp", ops);
  }

  @Test
  void aReadOneElementPastTheEndIsFoundOnTheExampleNamingTheArgumentAndTheSide() {
    CheckResult r = faulted("memory_ops::half_shift_overread", MemoryBoundsCheck.ID,
        GuardRanges.RULE, "argument 'x', past the end");
    assertTrue(r.fact("check").orElseThrow().startsWith("the cpu kernel, its tensor arguments ending at a guard page"),
        r.toString());
    assertFalse(r.fact("check").orElseThrow().contains("guard pages:"), "the addresses are the parent's, not the reader's");
    // a write before the start is found in the second call, the one with the guard page there
    assertTrue(corpus.one("memory_ops::splat_add_down_unbounded_", MemoryBoundsCheck.ID, "cpu").fact("check").orElseThrow()
        .startsWith("the cpu kernel, its tensor arguments starting at a guard page"));
  }

  /**
   * A read before the start; writes into a mutated argument, which add 0 (the weight of a point exactly
   * on the grid), so only the guard page sees them; a read past the end of one tensor of a list.
   */
  @Test
  void eachAccessOutOfBoundsIsFoundOnTheExampleNamingTheArgumentOrListElementAndTheSide() {
    Map<String, String> found = Map.of(
        "memory_ops::half_shift_back_overread", "argument 'x', before the start",
        "memory_ops::splat_add_unbounded_", "argument 'grid', past the end",
        "memory_ops::splat_add_down_unbounded_", "argument 'grid', before the start",
        "memory_ops::cat_flat_pairs", "argument 'xs[1]', past the end");
    found.forEach((op, subject) -> faulted(op, MemoryBoundsCheck.ID, GuardRanges.RULE, subject));
  }


  /**
   * Accesses around memory the kernel allocated itself (issue 43), each adding 0 or reading a value it
   * never uses, so only a guard page the guarded allocator placed sees them, on the examples alone: past
   * the end and before the start of its output, past the end of a temporary it freed.
   */
  @Test
  void anAccessAroundMemoryTheKernelAllocatedIsFoundOnTheExampleNamingTheOutputOrTemporaryAndTheSide() {
    Map<String, String> found = Map.of(
        "memory_ops::splat_unbounded", "output 0, past the end",
        "memory_ops::splat_down_unbounded", "output 0, before the start",
        "memory_ops::window_mean_overread", "a temporary the kernel allocated, past the end");
    found.forEach((op, subject) -> {
      CheckResult r = faulted(op, MemoryBoundsCheck.ID, GuardRanges.RULE, subject);
      assertTrue(r.example().startsWith("memory_ops.json#"), "on the example: " + r);
    });
    for (String op : List.of("memory_ops::splat", "memory_ops::splat_down")) {
      CheckResult good = corpus.one(op, MemoryBoundsCheck.ID, "cpu");
      assertEquals(Outcome.PASSED, good.outcome(), good.toString());
      assertEquals("output 0", good.fact(MemoryBoundsCheck.ALLOCATIONS_GUARDED).orElseThrow());
    }
  }

  /**
   * A kernel that writes one element before its own scratch row damages malloc's header for it, and its plain
   * call crashes (issue 52): kernel.crash, which names nothing, and memory.bounds, which runs on the example
   * although kernel.error crashed there, and names the temporary and the side (the canary before it changed).
   */
  @Test
  void aCrashOfThePlainCallIsDiagnosedUnderTheGuardsNamingTheTemporaryAndTheSide() {
    CheckResult crash = corpus.one("memory_ops::window_mean_sentinel", "kernel.crash", "cpu");
    assertEquals(Outcome.FAILED, crash.outcome(), crash.toString());
    assertEquals("crashed again when its input ran alone, on a fresh worker",
        crash.fact(dev.opcheck4j.run.session.CrashWitness.ALONE).orElseThrow());
    CheckResult r = faulted("memory_ops::window_mean_sentinel", MemoryBoundsCheck.ID, GuardRanges.RULE,
        "a temporary the kernel allocated, before the start");
    assertTrue(r.fact("but was").orElseThrow().startsWith("a temporary the kernel allocated, before the start: written from"
        + " 4 byte(s) before its first byte"), r.toString());
    assertEquals(r.example(), crash.example(), "the input whose plain call crashed");
  }

  /**
   * The same write, on generated odd sizes only: the crash of a generated input says what memory.bounds sees on
   * its minimal example under its guards.
   */
  @Test
  void aCrashOnAGeneratedInputCarriesWhatTheGuardsSeeOnItsMinimalExample() {
    CheckResult crash = corpus.of("memory_ops::window_mean_sentinel_odd")
        .filter(r -> r.check().equals("kernel.crash")).findFirst().orElseThrow();
    assertTrue(crash.fact(dev.opcheck4j.checks.SupervisorCheck.DIAGNOSIS).orElseThrow()
        .startsWith("memory.bounds: a temporary the kernel allocated, before the start: written from 4 byte(s) before"
            + " its first byte"),
        crash.toString());
    assertTrue(crash.fact(Fact.MINIMAL_EXAMPLE).orElseThrow().matches("x=float32\\[\\d*[13579]\\], .*"), crash.toString());
    // the write before the temporary's start damages its chunk's header: the next free faults inside glibc's
    // allocator with its lock held, and the JVM's crash report, which allocates, stalls on it; the worker is
    // killed at the first stalled step, not after -XX:ErrorLogTimeout (12 s a death)
    assertTrue(crash.fact(Fact.CRASH_REPORT).orElseThrow().startsWith("stalled in its step \""), crash.toString());
  }

  /** A read of a scratch row after the kernel freed it (issue 54): named as a use after free of the temporary. */
  @Test
  void aUseAfterFreeOfATemporaryIsNamedSo() {
    CheckResult r = faulted("memory_ops::window_mean_freed", MemoryBoundsCheck.ID, GuardRanges.RULE,
        "a temporary the kernel allocated, used after it was freed");
    assertTrue(r.example().startsWith("memory_ops.json#"), "on the example: " + r);
  }

  /**
   * A kernel returning Tensor[] that stores one element past the end of the list's second tensor, leaving
   * its bytes as they were (issue 43): found on the example, naming that element of the returned list.
   */
  @Test
  void anAccessPastAnElementOfAReturnedListIsFoundNamingTheElement() {
    CheckResult r = faulted("memory_ops::halves_unbounded", MemoryBoundsCheck.ID, GuardRanges.RULE,
        "output 0[1], past the end");
    assertTrue(r.example().startsWith("memory_ops.json#"), "on the example: " + r);
    CheckResult good = corpus.one("memory_ops::halves", MemoryBoundsCheck.ID, "cpu");
    assertEquals(Outcome.PASSED, good.outcome(), good.toString());
    assertEquals("output 0[0], output 0[1]", good.fact(MemoryBoundsCheck.ALLOCATIONS_GUARDED).orElseThrow());
  }

  /** The input holds its values again after the call: only its read-only pages see the write. */
  @Test
  void anInputWrittenAndRestoredIsFoundOnTheExampleNamingTheArgument() {
    CheckResult r = faulted("memory_ops::lower_median_in_place", ReadOnlyInputCheck.ID,
        GuardRanges.READ_ONLY_RULE, "argument 'x', written");
    assertEquals(Outcome.PASSED, corpus.one("memory_ops::lower_median_in_place", "mutation.undeclared", "cpu").outcome());
    CheckResult good = corpus.one("memory_ops::lower_median", ReadOnlyInputCheck.ID, "cpu");
    assertEquals(Outcome.PASSED, good.outcome(), good.toString());
    assertEquals("x", good.fact("read-only").orElseThrow());
    CheckResult mutated = corpus.one("memory_ops::splat_add_", ReadOnlyInputCheck.ID, "cpu");
    assertEquals("values", mutated.fact("read-only").orElseThrow(), "grid is (a!): it stays writable");
  }

  @Test
  void theGoodTwinsHaveEveryArgumentGuarded() {
    for (String op : List.of("memory_ops::half_shift", "memory_ops::half_shift_back")) {
      CheckResult r = corpus.one(op, MemoryBoundsCheck.ID, "cpu");
      assertEquals(Outcome.PASSED, r.outcome(), r.toString());
      assertEquals("x", r.fact("guarded").orElseThrow());
      assertEquals("output 0", r.fact(MemoryBoundsCheck.ALLOCATIONS_GUARDED).orElseThrow(),
          "its output is the kernel's own: the guarded allocator placed it");
      assertEquals(Optional.empty(), r.fact(Fact.NOT_CHECKED));
    }
    CheckResult temporary = corpus.one("memory_ops::window_mean", MemoryBoundsCheck.ID, "cpu");
    assertEquals(Outcome.PASSED, temporary.outcome(), temporary.toString());
    assertEquals("output 0, 1 temporary", temporary.fact(MemoryBoundsCheck.ALLOCATIONS_GUARDED).orElseThrow());
    for (String op : List.of("memory_ops::splat_add_", "memory_ops::splat_add_down_")) {
      CheckResult r = corpus.one(op, MemoryBoundsCheck.ID, "cpu");
      assertEquals(Outcome.PASSED, r.outcome(), r.toString());
      assertEquals("grid, values", r.fact("guarded").orElseThrow());
      assertEquals(Optional.empty(), r.fact(Fact.NOT_CHECKED), "it returns nothing: every tensor it touches is guarded");
    }
    CheckResult list = corpus.one("memory_ops::cat_flat", MemoryBoundsCheck.ID, "cpu");
    assertEquals(Outcome.PASSED, list.outcome(), list.toString());
    assertEquals("xs[0], xs[1]", list.fact("guarded").orElseThrow());
  }

  @Test
  void aBoolReadAsANumberIsFoundOnTheExampleAndAnOpWithoutBoolsIsNotCalled() {
    CheckResult r = corpus.one("memory_ops::count_true_bytes", BoolBytesCheck.ID, "cpu");
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    assertTrue(r.fact("but was").orElseThrow().startsWith("output 0 differs when mask holds true as the bytes 2..255"),
        r.toString());
    CheckResult none = corpus.one("memory_ops::half_shift", BoolBytesCheck.ID, "cpu");
    assertEquals(Outcome.SKIPPED, none.outcome());
    assertEquals("no example has a bool tensor argument", none.reason());
  }

  /** Every example has an even size: only a generated odd one leaves the last element unwritten. */
  @Test
  void anUnwrittenOddTailIsFoundOnAGeneratedInputAndShrunkToTheSmallestOddSize() {
    CheckResult r = uninitializedOnlyOnAGeneratedInput("memory_ops::double_pairs_no_tail");
    assertTrue(r.fact(Fact.MINIMAL_EXAMPLE).orElseThrow().startsWith("x=float32[1] "), r.toString());
    assertEquals(new Cause.ValueMismatch("output 0"), r.finding().cause());
    assertTrue(r.fact("but was").orElseThrow().endsWith("first at [0]"), r.toString());
    assertEquals(1, r.finding().heatmaps().size());
  }

  /**
   * Sizes 0, 1 and every even size are right, so the edge cases pass too: the first odd size above 1
   * that a random try draws fails, and shrinking it through this check reaches 3, never 1.
   */
  @Test
  void anUnwrittenTailFromSizeThreeIsShrunkThroughTheCheckToSizeThree() {
    CheckResult r = uninitializedOnlyOnAGeneratedInput("memory_ops::double_pairs_scalar_path");
    assertTrue(r.fact(Fact.MINIMAL_EXAMPLE).orElseThrow().startsWith("x=float32[3] "), r.toString());
    assertTrue(r.fact("but was").orElseThrow().endsWith("first at [2]"), r.toString());
  }

  /** memory.uninitialized on {@code op}: passed on the (even) example, failed on a generated input. */
  private static CheckResult uninitializedOnlyOnAGeneratedInput(String op) {
    assertEquals(Outcome.PASSED, corpus.one(op, UninitializedCheck.ID, "cpu").outcome());
    CheckResult r = corpus.of(op).filter(x -> x.check().equals(UninitializedCheck.ID) && x.outcome() == Outcome.FAILED)
        .findFirst().orElseThrow();
    assertTrue(r.example().startsWith("generated"), r.toString());
    return r;
  }
}
