package dev.opcheck4j.checks.memory;

import dev.opcheck4j.torch.AllocatorFill;
import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Heatmap;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.generate.TensorText;
import dev.opcheck4j.spec.OpSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * No output depends on memory the kernel never wrote. The example is called with libtorch's CPU
 * allocator filling new memory with zeros (as every call in a worker is), then with junk ({@link
 * AllocatorFill}): an output element that differs was read from memory no one wrote. A third call,
 * with junk again, must give the second call's outputs again, or the op merely differs from call to
 * call (that is {@code determinism}'s; one that alternates would otherwise look the same) and nothing
 * is concluded.
 */
public final class UninitializedCheck extends HostMemoryCheck {
  public static final String ID = "memory.uninitialized";

  public UninitializedCheck() {
    super(Declaration.error(ID, "outputs do not depend on memory the kernel never wrote (zero- then junk-filled allocations)")
        .requires(KernelErrorCheck.ID)
        // two more kernel calls per input: a tenth of the tries (at least 3), which begin with the edge
        // cases (every varying size 0, then 1), where a tail left unwritten already shows
        .onAFewGeneratedInputs());
  }

  @Override
  Optional<String> unavailable() {
    return AllocatorFill.unavailable();
  }

  @Override
  Verdict evaluateWith(Subject s) throws Exception {
    BoundExample first = OpCall.bind(s, s.device());
    List<OpCall.Output> zeros = called(s, first, "the cpu kernel, new memory zero-filled");
    if (zeros.isEmpty()) {
      return Verdict.skipped("the op returns no tensor and writes no (a!) argument: nothing to compare");
    }
    List<OpCall.Output> junk;
    try (AllocatorFill fill = AllocatorFill.junk()) {
      junk = called(s, OpCall.bind(s, s.device()), "the cpu kernel, new memory junk-filled (0x7fedbeef)");
    }
    for (int i = 0; i < zeros.size(); i++) {
      OpCall.Output z = zeros.get(i);
      byte[] a = TensorCopies.bytes(z.tensor());
      byte[] b = TensorCopies.bytes(junk.get(i).tensor());
      long[] sizes = z.tensor().sizes().vec().get();
      if (Arrays.equals(a, b) || !Arrays.equals(sizes, junk.get(i).tensor().sizes().vec().get())) {
        continue;
      }
      List<OpCall.Output> again;
      try (AllocatorFill fill = AllocatorFill.junk()) {
        again = called(s, OpCall.bind(s, s.device()), "the cpu kernel, new memory junk-filled (again)");
      }
      if (!Arrays.equals(b, TensorCopies.bytes(again.get(i).tensor()))) {
        // not a pass: with outputs that change under one fill, an unwritten element cannot be told apart
        return Verdict.skipped(z.label() + " differs from call to call with the same fill (see determinism):"
            + " whether it reads uninitialized memory cannot be told");
      }
      int size = (int) z.tensor().element_size();
      List<Integer> differing = new ArrayList<>();
      for (int k = 0; k < a.length / size; k++) {
        if (!Arrays.equals(a, k * size, (k + 1) * size, b, k * size, (k + 1) * size)) {
          differing.add(k);
        }
      }
      Heatmap map = ValueComparison.differenceMap(z.label(), sizes, TensorCopies.doubles(z.tensor()),
          TensorCopies.doubles(junk.get(i).tensor()), new OpSpec.Tolerance(0, 0));
      return Verdict.failed(Finding.of(
          "every output element written by the kernel: the same outputs whatever new memory holds",
          z.label() + ": " + differing.size() + " of " + a.length / size + " elements differ between zero- and"
              + " junk-filled allocations, first at " + TensorText.index(sizes, differing.get(0)),
          "an element the kernel never writes (a loop that stops early, a vectorized body without its tail, an"
              + " accumulator never zeroed): write every element, or allocate with zeros",
          new Cause.ValueMismatch(z.label())).withHeatmaps(List.of(map)), OpCall.exampleFact(s, first));
    }
    return Verdict.passed(Fact.of("outputs compared", zeros.size()));
  }

  private static List<OpCall.Output> called(Subject s, BoundExample ex, String step) throws OpCall.KernelError {
    return OpCall.observed(s, ex, OpCall.call(s, ex, step));
  }
}
