package dev.opcheck4j.cli;

import dev.opcheck4j.generate.TensorSpec;
import dev.opcheck4j.torch.LibraryLoadException;
import dev.opcheck4j.torch.NativeStrings;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.Operators;
import dev.opcheck4j.torch.ScriptModels;
import dev.opcheck4j.torch.ScriptModules;
import dev.opcheck4j.torch.TorchRuntime;
import dev.opcheck4j.torch.UnknownOpException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.JitModule;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * {@code ./opcheck model MODEL.pt [--library LIB]... [--spec SPEC] [--input VALUE]...}: loads a
 * TorchScript model as the tutorial's C++ program does, lists the custom ops its code calls with the
 * schema each call site is bound to, and runs {@code forward} once when inputs are given.
 */
final class ModelCommand {
  private final PrintStream out;
  private final PrintStream err;

  ModelCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  ExitCode run(Path model, List<Path> libraries, List<String> inputs, long seed)
      throws UsageException, LibraryLoadException, IOException {
    if (!Files.isRegularFile(model)) {
      throw new UsageException("model not found: " + model);
    }
    TorchRuntime runtime = TorchRuntime.get();
    List<OpLibrary> libs = new ArrayList<>();
    for (Path lib : libraries) {
      libs.add(OpLibrary.load(lib));
    }
    JitModule module;
    try {
      module = ScriptModels.load(model);
    } catch (ScriptModels.LoadFailure f) {
      return failed(model, libs, f);
    }
    out.println("model " + model + ": loaded with torch::jit::load (libtorch " + runtime.torchVersion() + ")");
    List<ScriptModels.CalledOp> calls = ScriptModels.calledInGraphs(module);
    out.println(calls.isEmpty() ? "custom ops called: none" : "custom ops called:");
    for (ScriptModels.CalledOp c : calls) {
      out.println("  " + c.op() + "  " + resolution(c.op(), libs) + "  (in " + c.where() + ")");
      out.println("    call site expects : " + c.schema().orElse("(unbound)"));
      try {
        String registered = Operators.find(c.op()).schema().toString();
        boolean same = c.schema().map(registered::equals).orElse(false);
        out.println("    registered schema : " + registered + (same ? "  [compatible]" : "  [differs]"));
      } catch (UnknownOpException e) {
        // the call site is bound to an overload; its schema was printed above
      }
    }
    return forward(module, inputs, seed);
  }

  private static String resolution(String op, List<OpLibrary> libs) {
    for (OpLibrary lib : libs) {
      if (lib.ops().stream().anyMatch(o -> o.equals(op) || o.startsWith(op + "."))) {
        return "resolved by " + lib.path().getFileName();
      }
    }
    return "resolved (registered outside the given libraries)";
  }

  private ExitCode failed(Path model, List<OpLibrary> libs, ScriptModels.LoadFailure f) throws IOException {
    String where = callLine(model, f.op());
    switch (f.kind()) {
      case UNKNOWN_OP -> {
        String ns = f.op().substring(0, f.op().indexOf("::"));
        String loaded = libs.isEmpty()
            ? "no op library is loaded"
            : String.join(", ", libs.stream().map(l -> l.path().getFileName().toString()).toList())
                + " does not register it";
        err.println("opcheck: " + model + " calls " + f.op() + " (Unknown builtin op: " + loaded
            + "); load the library that defines the '" + ns + "' ops with --library LIB" + where);
        return ExitCode.INPUT_ERROR;
      }
      case SCHEMA_MISMATCH -> {
        err.println("opcheck: " + model + ": the call of " + (f.op() == null ? "a custom op" : f.op())
            + " does not fit the schema registered now: " + f.getMessage() + where);
        return ExitCode.CHECK_FAILED;
      }
      default -> {
        err.println("opcheck: cannot load " + model + ": " + f.getMessage());
        return ExitCode.INPUT_ERROR;
      }
    }
  }

  private static String callLine(Path model, String op) throws IOException {
    if (op == null) {
      return "";
    }
    try {
      for (ScriptModels.CalledOp c : ScriptModels.calledInCode(model)) {
        if (c.op().equals(op)) {
          return " (call site: " + c.where() + ")";
        }
      }
    } catch (IOException e) {
      return "";
    }
    return "";
  }

  private ExitCode forward(JitModule module, List<String> inputs, long seed) throws UsageException {
    List<String> params = ScriptModels.forwardParameters(module);
    String signature = "forward(" + String.join(", ", params) + ")";
    if (inputs.isEmpty()) {
      out.println(signature + ": not run (give one --input per argument, e.g. --input float32[16,16] --input int:8)");
      return ExitCode.OK;
    }
    if (inputs.size() != params.size()) {
      throw new UsageException(signature + " takes " + params.size() + " arguments, --input gave " + inputs.size());
    }
    // values from a generator this run owns, never torch's global one
    var gen = new org.bytedeco.pytorch.GeneratorOptional(torch.make_generator_cpu(seed));
    List<IValue> values = new ArrayList<>();
    for (String in : inputs) {
      values.add(input(in, gen));
    }
    IValue result;
    try {
      result = ScriptModules.forward(module, values);
    } catch (RuntimeException e) {
      err.println("opcheck: " + signature + " raised: " + NativeStrings.firstLine(e.getMessage()));
      return ExitCode.CHECK_FAILED;
    }
    out.println(signature + " on " + String.join(", ", inputs) + ":");
    describe("output", result);
    return ExitCode.OK;
  }

  private void describe(String label, IValue v) {
    if (v.isTensor()) {
      Tensor t = v.toTensor();
      out.println("  " + label + ": " + TensorSpec.dtypeName(t.scalar_type()) + Arrays.toString(t.sizes().vec().get()));
    } else if (v.isTuple()) {
      var elements = v.toTuple().elements();
      for (long i = 0; i < elements.size(); i++) {
        describe(label + " " + i, new IValue(elements.get(i)));
      }
    } else if (v.isTensorList()) {
      var list = v.toTensorVector();
      for (long i = 0; i < list.size(); i++) {
        describe(label + "[" + i + "]", new IValue(list.get(i)));
      }
    } else {
      out.println("  " + label + ": " + ScriptModels.kind(v));
    }
  }

  /**
   * One forward input: {@code float32[16,16]} (or {@code [16,16]}, float32) is a tensor of uniform
   * values in [0, 1), {@code int:8}, {@code float:0.5} and {@code bool:true} are scalars.
   */
  static IValue input(String text, org.bytedeco.pytorch.GeneratorOptional gen) throws UsageException {
    String t = text.strip().toLowerCase(Locale.ROOT);
    try {
      if (t.startsWith("int:")) {
        return new IValue(Long.parseLong(t.substring(4)));
      }
      if (t.startsWith("float:")) {
        return new IValue(Double.parseDouble(t.substring(6)));
      }
      if (t.startsWith("bool:")) {
        return new IValue(Boolean.parseBoolean(t.substring(5)));
      }
      int open = t.indexOf('[');
      if (open >= 0 && t.endsWith("]")) {
        String dtype = open == 0 ? "float32" : t.substring(0, open);
        String dims = t.substring(open + 1, t.length() - 1).strip();
        long[] shape = dims.isEmpty() ? new long[0]
            : Arrays.stream(dims.split(",")).map(String::strip).mapToLong(Long::parseLong).toArray();
        Optional<torch.ScalarType> st = TensorSpec.dtypeOf(dtype);
        if (st.isPresent()) {
          var f64 = new org.bytedeco.pytorch.TensorOptions()
              .dtype(new org.bytedeco.pytorch.ScalarTypeOptional(torch.ScalarType.Double));
          return new IValue(torch.rand(shape, gen, new org.bytedeco.pytorch.DimnameListOptional(), f64).to(st.get()));
        }
      }
    } catch (NumberFormatException e) {
      // falls through to the usage error
    }
    throw new UsageException("--input '" + text + "' is not a value: expected DTYPE[d0,d1,...] (e.g. float32[16,16]),"
        + " int:N, float:X or bool:B");
  }
}
