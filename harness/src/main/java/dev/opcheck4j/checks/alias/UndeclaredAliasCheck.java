package dev.opcheck4j.checks.alias;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;

/**
 * An output shares storage with an input only where the schema declares it ({@code Tensor(a) x ->
 * Tensor(a)}). The very same tensor is {@code alias.returns-input}'s finding, not this one's.
 */
public final class UndeclaredAliasCheck extends CheckBase implements ExampleCheck {
  public static final String ID = "alias.undeclared";

  public UndeclaredAliasCheck() {
    super(Declaration.error(ID, "outputs share storage with inputs only where the schema declares an alias")
        .requires(KernelErrorCheck.ID)
        .onGeneratedInputs());
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    OpCall.Outputs out = OpCall.call(s, ex);
    if (out.tensors().isEmpty()) {
      return Verdict.skipped("the op returns no tensor");
    }
    // after the skips: an op whose outputs cannot alias is not applicable, decomposed or not
    var decomposed = Aliasing.decomposed(s);
    if (decomposed.isPresent()) {
      return Verdict.passed(decomposed.get());
    }
    for (OpCall.Output o : out.tensors()) {
      for (BoundExample.TensorInput in : ex.tensors()) {
        if (o.tensor().is_same(in.tensor()) || !o.tensor().is_alias_of(in.tensor())) {
          continue;
        }
        if (!Aliasing.declared(s.op().schema(), o.index(), in.argIndex())) {
          return Verdict.failed(Finding.of(
              o.label() + " shares no storage with '" + in.argument() + "' (" + s.op().schema() + ")",
              o.label() + " is a view of '" + in.argument() + "' (shares its storage)",
              "return a copy (clone); a declared view (Tensor(a) " + in.argument().replaceAll("\\[.*", "")
                  + " -> Tensor(a)) is only functionalizable when a CompositeImplicitAutograd kernel builds it from aten views",
              new Cause.Contract("undeclared alias", o.label() + " of '" + in.argument() + "'")), OpCall.exampleFact(s, ex));
        }
      }
    }
    return Verdict.passed(Fact.of("outputs compared", out.tensors().size() + " with " + ex.tensors().size() + " inputs"));
  }
}
