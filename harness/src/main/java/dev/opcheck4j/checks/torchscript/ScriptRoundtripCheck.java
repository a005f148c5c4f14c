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
import dev.opcheck4j.torch.NativeStrings;
import dev.opcheck4j.torch.ScriptModules;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.bytedeco.pytorch.JitModule;

/**
 * A module calling the op, saved as a TorchScript archive and loaded back with libtorch's loader
 * ({@code torch::jit::load}), names the op as {@code ops.<ns>.<name>} and gives the direct call's outputs.
 */
public final class ScriptRoundtripCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "torchscript.roundtrip";

  public ScriptRoundtripCheck() {
    super(Declaration.error(ID,
            "a module calling the op survives save and torch::jit::load with the same outputs")
        .requires(ScriptCallCheck.ID));
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    Set<Integer> given = ScriptRun.given(s);
    ScriptModules.OpModule module = ScriptModules.callingOp(s.op(), given);
    Path file = Files.createTempFile("opcheck4j-", ".pt");
    try {
      ScriptModules.save(module.module(), file);
      String code = ScriptModules.code(file);
      String call = "ops." + s.op().namespace() + "." + s.op().schema().baseName() + "(";
      Fact codeFact = Fact.of("saved code", callLine(code, call));
      if (!code.contains(call)) {
        return Verdict.failed(Finding.of("the saved code calls " + call + "...)", "it does not",
            "report this: TorchScript serialization names custom ops ops.<ns>.<name>",
            new Cause.Contract("saved code does not call the op", call)).with(codeFact));
      }
      JitModule loaded;
      try {
        loaded = ScriptModules.load(file);
      } catch (RuntimeException e) {
        String raised = loadError(e.getMessage());
        return Verdict.failed(Finding.of(
            "torch::jit::load reads back the module it saved",
            "it raised: " + raised,
            "the importer resolves " + call + "...) by name and binds it by argument types: an op whose name"
                + " TorchScript source gives another meaning, or whose saved call fits none of its overloads, cannot"
                + " be loaded; rename the op or its overloads",
            new Cause.Rejection(raised)).with(codeFact));
      }
      List<OpCall.Output> direct = ScriptRun.direct(s);
      if (direct.isEmpty()) {
        return Verdict.skipped("the op returns no tensor and writes no (a!) argument: nothing to compare");
      }
      List<OpCall.Output> reloaded = ScriptRun.run(s, loaded, given);
      Optional<String> diff = ScriptRun.difference(direct, reloaded);
      if (diff.isPresent()) {
        return Verdict.failed(Finding.of(
            "the outputs of the direct dispatcher call, bitwise, from the saved and reloaded module",
            diff.get(),
            "the saved code names the op without its overload, so the importer binds the call again by argument"
                + " types: make sure no other overload of the op accepts the same arguments",
            new Cause.ValueMismatch("outputs of the reloaded module")).with(codeFact));
      }
      return Verdict.passed(codeFact, Fact.of("outputs compared", direct.size()));
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static String callLine(String code, String call) {
    for (String line : code.split("\n")) {
      if (line.contains(call) || line.contains(" = ops.")) {
        return line.strip();
      }
    }
    return "(no call of an ops.* function in the saved code)";
  }

  /** The first line of the importer's message that says what went wrong. */
  static String loadError(String message) {
    String m = message == null ? "" : message;
    for (String line : m.split("\n")) {
      String t = line.strip();
      if (!t.isEmpty() && !t.startsWith("Exception raised from") && !t.startsWith("frame #")) {
        return t;
      }
    }
    return NativeStrings.firstLine(m);
  }
}
