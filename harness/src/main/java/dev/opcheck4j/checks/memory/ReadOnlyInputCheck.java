package dev.opcheck4j.checks.memory;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.mutation.UndeclaredMutationCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.torch.OpSchema;
import java.time.Duration;
import java.util.List;

/**
 * The kernel writes no tensor argument its schema does not declare mutable, not even one it restores
 * before returning (which {@code mutation.undeclared}, comparing bytes before and after, cannot see).
 * Each such argument is copied into pages made read-only ({@link GuardedMemory}); a write faults, the
 * worker dies, and the parent maps the faulting address to the argument, as for {@code memory.bounds},
 * whose supervisor role this check shares for its own faults. A write that leaves the input changed
 * is {@code mutation.undeclared}'s (this check requires it green): here only the restored ones remain.
 */
public final class ReadOnlyInputCheck extends ProtectedPagesCheck {
  public static final String ID = "memory.readonly-input";
  private static final byte CANARY = (byte) 0xA5;
  private static final String EXPECTED = "the kernel writes no input its schema does not declare mutable (a!),"
      + " not even to restore it";
  private static final String HINT = "work on a copy (the input may live in read-only memory, such as a tensor"
      + " loaded with mmap, and another thread may read it meanwhile), or declare the argument Tensor(a!)";

  public ReadOnlyInputCheck() {
    super(Declaration.error(ID, "the kernel writes no immutable input, even to restore it (read-only pages)")
        .requires(MemoryBoundsCheck.ID, UndeclaredMutationCheck.ID), GuardRanges.READ_ONLY_RULE);
  }

  @Override
  Verdict evaluateWith(Subject s) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    List<OpSchema.Argument> args = s.op().schema().arguments();
    try (GuardedArguments inputs = GuardedArguments.readOnly(ex, CANARY, i -> !args.get(i).isWrite())) {
      if (inputs.none()) {
        return Verdict.skipped("no tensor argument the schema leaves immutable has elements on cpu");
      }
      try {
        OpCall.call(s, inputs.example(), "the cpu kernel, its immutable inputs in read-only pages" + inputs.ranges().told());
      } catch (OpCall.KernelError e) {
        return raised("read-only memory", e);
      }
      return Verdict.passed(Fact.of("read-only", String.join(", ", inputs.arguments())));
    }
  }

  @Override
  public Finding finding(Cause death, String happened, Duration deadline, List<Fact> details) {
    Cause.Contract c = (Cause.Contract) death;
    return new Finding(EXPECTED, c.subject() + " (its pages were read-only, and the worker died: " + happened + ")",
        HINT, death, details, List.of());
  }
}
