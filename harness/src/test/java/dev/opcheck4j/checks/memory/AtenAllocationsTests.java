package dev.opcheck4j.checks.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.CorpusRun;
import dev.opcheck4j.testing.NativeOps;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Correct ops that compose aten CPU kernels (native-ops' aten_ops.cpp, classic, and aten_stable_ops.cpp, stable
 * ABI; issue 52): under memory.bounds every allocation aten makes for them goes through the guarded allocator,
 * raw ones included (gelu's raw_allocate and raw_deallocate killed the worker when the allocator had no raw
 * deleter), and each passes with the allocations it guarded named; no check fails or errs on any of them.
 */
class AtenAllocationsTests {
  @ParameterizedTest
  @ValueSource(strings = {"memory/aten_ops.json", "memory/aten_stable_ops.json"})
  void correctOpsComposingAtenKernelsPassMemoryBoundsWithTheirAllocationsGuarded(String spec) throws Exception {
    CorpusRun corpus = CorpusRun.of(spec, 10);
    List<String> ops = SpecReader.read(NativeOps.spec(spec)).ops().stream().map(o -> o.op()).toList();
    assertFalse(ops.isEmpty());
    for (String op : ops) {
      CheckResult r = corpus.one(op, MemoryBoundsCheck.ID, "cpu");
      assertEquals(Outcome.PASSED, r.outcome(), r.toString());
      assertTrue(r.fact(MemoryBoundsCheck.ALLOCATIONS_GUARDED).orElseThrow().startsWith("output 0"), r.toString());
      assertEquals(List.of(), corpus.of(op).filter(x -> x.outcome() == Outcome.FAILED || x.outcome() == Outcome.ERRORED)
          .toList(), op + " is correct");
    }
    String gelu = spec.contains("stable") ? "aten_stable_ops::gelu_sub" : "aten_ops::gelu_add";
    assertEquals("output 0, 1 temporary", corpus.one(gelu, MemoryBoundsCheck.ID, "cpu")
        .fact(MemoryBoundsCheck.ALLOCATIONS_GUARDED).orElseThrow(), "gelu's own buffer is guarded too");
  }
}
