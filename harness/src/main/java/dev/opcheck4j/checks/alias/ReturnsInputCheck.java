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
import dev.opcheck4j.checks.schema.FunctionalizableCheck;
import dev.opcheck4j.generate.BoundExample;

/**
 * No output is the very input tensor (the same TensorImpl): an operator below autograd must return
 * new tensors or views, or autograd's bookkeeping of the input is corrupted. An output declared the same
 * (a!) alias as a mutated input is allowed here (SchemaCheckMode allows it) and left to
 * schema.functionalizable, so one defect trips one check.
 */
public final class ReturnsInputCheck extends CheckBase implements ExampleCheck {
  public static final String ID = "alias.returns-input";

  public ReturnsInputCheck() {
    super(Declaration.error(ID, "no output is the very input tensor object")
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
    java.util.List<String> left = new java.util.ArrayList<>();
    for (OpCall.Output o : out.tensors()) {
      for (BoundExample.TensorInput in : ex.tensors()) {
        if (o.tensor().is_same(in.tensor()) && declaredMutableReturn(s, o, in)) {
          // SchemaCheckMode allows returning a mutable input; torch.compile does not: schema.functionalizable says so
          left.add(o.label() + " is '" + in.argument() + "', declared (a!) on both sides: see " + FunctionalizableCheck.ID);
        } else if (o.tensor().is_same(in.tensor())) {
          return Verdict.failed(Finding.of(
              o.label() + " is a new tensor or a view",
              o.label() + " is the input tensor '" + in.argument() + "' itself",
              "return a new tensor (or a view made with view/as_strided); for an in-place op return"
                  + " nothing ('-> ()')",
              new Cause.Contract("returns an input", o.label() + " is '" + in.argument() + "'")), OpCall.exampleFact(s, ex));
        }
      }
    }
    Fact compared = Fact.of("outputs compared", out.tensors().size() + " with " + ex.tensors().size() + " inputs");
    return left.isEmpty() ? Verdict.passed(compared) : Verdict.passed(compared, Fact.of("note", String.join("; ", left)));
  }

  /** Whether the schema declares this output the same (a!) alias set as the input's argument. */
  private static boolean declaredMutableReturn(Subject s, OpCall.Output o, BoundExample.TensorInput in) {
    if (o.index() < 0 || o.index() >= s.op().schema().returns().size()) {
      return false;
    }
    var ret = s.op().schema().returns().get(o.index()).alias();
    var arg = s.op().schema().arguments().get(in.argIndex()).alias();
    return ret.isPresent() && arg.isPresent() && ret.get().write() && arg.get().write()
        && ret.get().before().stream().anyMatch(arg.get().before()::contains);
  }
}
