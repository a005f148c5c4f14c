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
import java.util.List;

/** No two outputs share storage unless the schema puts them in one alias set. */
public final class OutputsAliasCheck extends CheckBase implements ExampleCheck {
  public static final String ID = "alias.outputs";

  public OutputsAliasCheck() {
    super(Declaration.error(ID, "no two outputs share storage")
        .requires(KernelErrorCheck.ID)
        .onGeneratedInputs());
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    List<OpCall.Output> outs = OpCall.call(s, ex).tensors();
    if (outs.size() < 2) {
      return Verdict.skipped("the op returns fewer than two tensors");
    }
    // after the skips: an op whose outputs cannot alias is not applicable, decomposed or not
    var decomposed = Aliasing.decomposed(s);
    if (decomposed.isPresent()) {
      return Verdict.passed(decomposed.get());
    }
    for (int i = 0; i < outs.size(); i++) {
      for (int j = i + 1; j < outs.size(); j++) {
        OpCall.Output a = outs.get(i);
        OpCall.Output b = outs.get(j);
        boolean shared = a.tensor().is_same(b.tensor()) || a.tensor().is_alias_of(b.tensor());
        if (shared && a.tensor().numel() > 0
            && !Aliasing.declaredBetweenReturns(s.op().schema(), a.index(), b.index())) {
          return Verdict.failed(Finding.of(
              "every output has storage of its own",
              a.label() + " and " + b.label() + (a.tensor().is_same(b.tensor()) ? " are the same tensor" : " share storage"),
              "return separate tensors (clone one of them)",
              new Cause.Contract("outputs share storage", a.label() + " and " + b.label())), OpCall.exampleFact(s, ex));
        }
      }
    }
    return Verdict.passed(Fact.of("output pairs compared", outs.size() * (outs.size() - 1) / 2));
  }
}
