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
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.List;

/**
 * The kernel changes no input the schema does not declare {@code (a!)}. Compared bitwise (NaN
 * payloads included) and by metadata, so a change below any tolerance is still caught.
 */
public final class UndeclaredMutationCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "mutation.undeclared";

  public UndeclaredMutationCheck() {
    super(Declaration.error(ID, "the kernel mutates only arguments declared Tensor(a!) (bitwise comparison)")
        .requires(KernelErrorCheck.ID)
        .onGeneratedInputs());
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    OpSchema schema = s.op().schema();
    List<InputSnapshot> before = new ArrayList<>();
    for (BoundExample.TensorInput in : ex.tensors()) {
      if (!schema.arguments().get(in.argIndex()).isWrite()) {
        before.add(InputSnapshot.of(in));
      }
    }
    if (before.isEmpty()) {
      return Verdict.skipped("no tensor input outside the declared (a!) ones: nothing must stay unchanged");
    }
    OpCall.call(s, ex);
    for (InputSnapshot snap : before) {
      List<String> changes = snap.changes();
      if (!changes.isEmpty()) {
        String arg = snap.input().argument();
        return Verdict.failed(Finding.of(
            "argument '" + arg + "' unchanged (" + schema + ")",
            String.join("; ", changes),
            "declare 'Tensor(a!) " + arg.replaceAll("\\[.*", "") + "' in the schema, or write into a new tensor",
            new Cause.Contract("undeclared mutation", "argument '" + arg + "'")), OpCall.exampleFact(s, ex));
      }
    }
    return Verdict.passed(Fact.of("inputs compared", before.size()));
  }
}
