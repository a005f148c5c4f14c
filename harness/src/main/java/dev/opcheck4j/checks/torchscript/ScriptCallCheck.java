package dev.opcheck4j.checks.torchscript;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.determinism.DeterminismCheck;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.torch.ScriptModules;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The op called from TorchScript (a module's forward, run by the TorchScript interpreter) binds to
 * the op's own schema and gives bitwise the outputs of the direct dispatcher call.
 */
public final class ScriptCallCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "torchscript.call";

  public ScriptCallCheck() {
    super(Declaration.error(ID,
            "called from TorchScript, the op binds to its own schema and gives the direct call's outputs")
        .requires(KernelErrorCheck.ID, DeterminismCheck.ID));
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    Set<Integer> given = ScriptRun.given(s);
    ScriptModules.OpModule module = ScriptModules.callingOp(s.op(), given);
    String own = s.op().schema().toString();
    if (!module.bound().equals(own)) {
      return Verdict.failed(new Finding(
          "a TorchScript call with the example's arguments binds to " + own,
          "TorchScript bound it to " + module.bound(),
          "TorchScript picks the first overload whose arguments fit, in registration order, and saved models"
              + " never name the overload: give the overloads argument types that tell them apart, or rename the op",
          new Cause.Contract("TorchScript binds another overload", module.bound()),
          List.of(Fact.of("graph", module.graph())), List.of()));
    }
    List<OpCall.Output> direct = ScriptRun.direct(s);
    List<OpCall.Output> scripted = ScriptRun.run(s, module.module(), given);
    if (direct.isEmpty()) {
      return Verdict.skipped("the op returns no tensor and writes no (a!) argument: nothing to compare");
    }
    Optional<String> diff = ScriptRun.difference(direct, scripted);
    if (diff.isPresent()) {
      return Verdict.failed(new Finding(
          "the outputs of the direct dispatcher call, bitwise, from the op called in TorchScript",
          diff.get(),
          "the TorchScript interpreter passes the same boxed stack as the dispatcher: look for state the kernel"
              + " keeps between calls, or for arguments it reads beyond the schema",
          new Cause.ValueMismatch("outputs of the TorchScript call"), List.of(Fact.of("graph", module.graph())), List.of()));
    }
    return Verdict.passed(Fact.of("bound", module.bound()), Fact.of("outputs compared", direct.size()));
  }
}
