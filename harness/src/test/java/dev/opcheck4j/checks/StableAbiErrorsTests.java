package dev.opcheck4j.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.testing.CorpusRun;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Companion;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An aten error inside a stable-ABI call reaches the result as aten's own text, for a library built for the
 * stable ABI of 2.10 (whose kernel throws only "API call failed at kernels.h, line N", and into which libtorch
 * 2.13's shim logs nothing: the message is read from the shim through the companion) and for one built for
 * 2.13 (whose kernel throws the text with "(originally from ...)" after it): native-ops' stable_errors.cpp,
 * built as errors210_ops and errors213_ops.
 */
class StableAbiErrorsTests {
  private static final String MM = "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)";

  @ParameterizedTest
  @ValueSource(strings = {"errors210_ops", "errors213_ops"})
  void aKernelErrorCarriesAtensMessageAndEachOpFailsExactlyItsMarkedChecks(String ns) throws Exception {
    CorpusRun corpus = CorpusRun.of("errors/" + ns + ".json", 5);
    CheckResult r = corpus.one(ns + "::gram_untransposed", "kernel.error", "cpu");
    assertEquals(Outcome.FAILED, r.outcome(), r.toString());
    assertEquals("raised: " + MM, r.finding().actual(), r.toString());
    Map<String, Set<String>> marked = NativeOps.expectations("stable_errors.cpp");
    for (String op : List.of("gram", "gram_untransposed")) {
      Set<String> got = corpus.of(ns + "::" + op).filter(CorpusRun::finding)
          .map(CheckResult::check).collect(Collectors.toCollection(TreeSet::new));
      assertEquals(marked.getOrDefault("stable_errors::" + op, Set.of()), got, ns + "::" + op);
      assertEquals(List.of(), corpus.of(ns + "::" + op).filter(x -> x.outcome() == Outcome.ERRORED).toList());
    }
    // generated inputs the kernel rejects are judged by the same text: no result anywhere names the failed call
    assertFalse(corpus.report().results().stream().flatMap(x -> x.facts().stream())
        .anyMatch(f -> f.value().contains("API call failed")), ns);
  }

  @Test
  void theTextA213TargetKernelThrowsIsCutToAtensMessage() {
    assertEquals(MM, StableAbiErrors.message(new RuntimeException(MM + " (originally from torch_call_dispatcher(name,"
        + " overload, stack.data(), TORCH_ABI_VERSION) API call failed at /src/kernels.h, line 87)")));
    assertEquals("DefaultCPUAllocator: can't allocate memory: you tried to allocate 8 bytes",
        StableAbiErrors.message(new RuntimeException("[enforce fail at alloc_cpu.cpp:117] err == 0. DefaultCPUAllocator:"
            + " can't allocate memory: you tried to allocate 8 bytes (originally from aoti_torch_empty_strided(...) API"
            + " call failed at ops.h, line 12)")));
  }

  @Test
  void aFailedCallWithNoMessageInTheShimKeepsItsOwnTextAndOtherErrorsTheirFirstLine() {
    Companion.takeShimError();
    String failed = "torch_call_dispatcher(name, overload, stack.data(), TORCH_ABI_VERSION) API call failed at"
        + " kernels.h, line 87";
    assertEquals(failed, StableAbiErrors.message(new RuntimeException(failed)));
    // a 2.13-target kernel under a Python dispatch mode may throw no text before "(originally from": its own line then
    String bare = " (originally from torch_call_dispatcher(...) API call failed at kernels.h, line 87)";
    assertEquals(bare.strip(), StableAbiErrors.message(new RuntimeException(bare)));
    assertEquals("dropout: x must be float32 or float64",
        StableAbiErrors.message(new RuntimeException("dropout: x must be float32 or float64\nException raised from ...")));
  }
}
