package dev.opcheck4j.checks.alias;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import java.util.List;

/** No two outputs share storage unless the schema puts them in one alias set. */
public final class OutputsAliasCheck implements Check {
  public static final String ID = "alias.outputs";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String summary() {
    return "no two outputs share storage";
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
    List<OpCall.Output> outs = OpCall.call(s, ex).tensors();
    for (int i = 0; i < outs.size(); i++) {
      for (int j = i + 1; j < outs.size(); j++) {
        OpCall.Output a = outs.get(i);
        OpCall.Output b = outs.get(j);
        boolean shared = a.tensor().is_same(b.tensor()) || a.tensor().is_alias_of(b.tensor());
        if (shared && a.tensor().numel() > 0
            && !Aliasing.declaredBetweenReturns(s.op().schema(), a.index(), b.index())) {
          return Verdict.failed(
              "every output has storage of its own",
              a.label() + " and " + b.label() + (a.tensor().is_same(b.tensor()) ? " are the same tensor" : " share storage"),
              "return separate tensors (clone one of them)",
              Fact.of("example", s.example().ref() + "  " + ex.description()));
        }
      }
    }
    return Verdict.passed();
  }
}
