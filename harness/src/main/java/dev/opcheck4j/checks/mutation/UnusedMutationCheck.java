package dev.opcheck4j.checks.mutation;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import java.util.ArrayList;
import java.util.List;

/**
 * An argument declared {@code (a!)} that this example did not change (the declaration may be stale,
 * and costs torch.compile a copy). Stricter than PyTorch, so its severity is warning.
 */
public final class UnusedMutationCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "mutation.unused";

  public UnusedMutationCheck() {
    super(Declaration.warning(ID, "every argument declared Tensor(a!) is changed by the example")
        .requires(KernelErrorCheck.ID));
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    if (s.op().schema().mutableArguments().isEmpty()) {
      return Verdict.skipped("no argument is declared (a!)");
    }
    BoundExample ex = OpCall.bind(s, s.device());
    List<InputSnapshot> declared = new ArrayList<>();
    for (BoundExample.TensorInput in : ex.tensors()) {
      if (s.op().schema().arguments().get(in.argIndex()).isWrite()) {
        declared.add(InputSnapshot.of(in));
      }
    }
    OpCall.call(s, ex);
    List<String> unchanged = declared.stream().filter(d -> d.changes().isEmpty())
        .map(d -> "'" + d.input().argument() + "'").toList();
    if (unchanged.isEmpty()) {
      return Verdict.passed(Fact.of("written", declared.size() + " of " + declared.size() + " declared arguments"));
    }
    return Verdict.failed(Finding.of(
        "every argument declared (a!) is written by the example",
        String.join(", ", unchanged) + " declared (a!) but not changed by this example",
        "drop the (a!) annotation if the kernel never writes it, or add an example that does",
        new Cause.Contract("declared mutation unused", String.join(", ", unchanged))));
  }
}
