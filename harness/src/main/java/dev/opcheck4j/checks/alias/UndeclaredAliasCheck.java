package dev.opcheck4j.checks.alias;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import java.util.List;

/**
 * An output shares storage with an input only where the schema declares it ({@code Tensor(a) x ->
 * Tensor(a)}). The very same tensor is {@code alias.returns-input}'s finding, not this one's.
 */
public final class UndeclaredAliasCheck implements Check {
  public static final String ID = "alias.undeclared";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String summary() {
    return "outputs share storage with inputs only where the schema declares an alias";
  }

  @Override
  public Scope scope() {
    return Scope.EXAMPLE;
  }

  @Override
  public List<String> requires() {
    return List.of(KernelErrorCheck.ID);
  }

  @Override
  public Verdict evaluate(Subject s) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    OpCall.Outputs out = OpCall.call(s, ex);
    for (OpCall.Output o : out.tensors()) {
      for (BoundExample.TensorInput in : ex.tensors()) {
        if (o.tensor().is_same(in.tensor()) || !o.tensor().is_alias_of(in.tensor())) {
          continue;
        }
        if (!Aliasing.declared(s.op().schema(), o.index(), in.argIndex())) {
          return Verdict.failed(
              o.label() + " shares no storage with '" + in.argument() + "' (" + s.op().schema() + ")",
              o.label() + " is a view of '" + in.argument() + "' (shares its storage)",
              "declare the alias (Tensor(a) " + in.argument().replaceAll("\\[.*", "")
                  + " -> Tensor(a)), or return a copy (clone)",
              Fact.of("example", s.example().ref() + "  " + ex.description()));
        }
      }
    }
    return Verdict.passed();
  }
}
