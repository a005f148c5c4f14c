package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.link.ModelInfo;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.generate.TensorSpec;
import dev.opcheck4j.torch.NativeStrings;
import dev.opcheck4j.torch.Operators;
import dev.opcheck4j.torch.ScriptModels;
import dev.opcheck4j.torch.ScriptModules;
import dev.opcheck4j.torch.TensorFiles;
import dev.opcheck4j.torch.UnknownOpException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.GeneratorOptional;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.JitModule;
import org.bytedeco.pytorch.ScalarTypeOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;

/**
 * The worker's side of {@code ./opcheck model}: loads a TorchScript model as the tutorial's C++
 * program does ({@code torch::jit::load}), describes the custom ops its code calls, and runs
 * {@code forward} on inputs given as text. The loaded model is kept for the Forward units that follow.
 */
public final class ModelUnits {
  private JitModule module;

  /** Loads the model (outside any unit's {@link PointerScope}: it lives until the next LoadModel unit). */
  public ModelInfo load(Path file) {
    if (module != null) {
      // no garbage collector frees native memory in a worker (nopointergc): the model before is freed here
      module.close();
      module = null;
    }
    try {
      module = ScriptModels.load(file);
    } catch (ScriptModels.LoadFailure f) {
      ModelInfo.Failure failure = new ModelInfo.Failure(ModelInfo.Failure.Kind.valueOf(f.kind().name()), f.op(),
          f.getMessage(), callSite(file, f.op()));
      return new ModelInfo(failure, List.of(), List.of());
    }
    try (PointerScope scope = new PointerScope()) {
      List<ModelInfo.Call> calls = new ArrayList<>();
      for (ScriptModels.CalledOp c : ScriptModels.calledInGraphs(module)) {
        ModelInfo.Call bound = new ModelInfo.Call(c.op(), c.where(), c.schema(), Optional.empty());
        Optional<String> registered;
        try {
          // the overload the call site is bound to: with several (from two libraries, say), the op's name alone
          // would find another one
          registered = Optional.of(Operators.find(bound.bound()).schema().toString());
        } catch (UnknownOpException e) {
          registered = Optional.empty();
        }
        calls.add(new ModelInfo.Call(c.op(), c.where(), c.schema(), registered));
      }
      return new ModelInfo(null, calls, ScriptModels.forwardParameters(module));
    }
  }

  private static String callSite(Path model, String op) {
    if (op == null) {
      return null;
    }
    try {
      for (ScriptModels.CalledOp c : ScriptModels.calledInCode(model)) {
        if (c.op().equals(op)) {
          return c.where();
        }
      }
    } catch (IOException e) {
      return null;
    }
    return null;
  }

  /** Runs forward of the loaded model on {@code inputs}, with values from a generator seeded by {@code seed}. */
  public ModelInfo.Forward forward(List<String> inputs, long seed, Optional<Path> expect) {
    if (module == null) {
      throw new IllegalStateException("a Forward unit before a LoadModel unit loaded a model");
    }
    try (PointerScope scope = new PointerScope()) {
      return run(inputs, seed, expect);
    }
  }

  private ModelInfo.Forward run(List<String> inputs, long seed, Optional<Path> expect) {
    List<String> params = ScriptModels.forwardParameters(module);
    String signature = "forward(" + String.join(", ", params) + ")";
    if (inputs.size() != params.size()) {
      return new ModelInfo.Forward(signature + " takes " + params.size() + " arguments, --input gave " + inputs.size(),
          null, null, null);
    }
    // values from a generator this run owns, never torch's global one
    GeneratorOptional gen = new GeneratorOptional(torch.make_generator_cpu(seed));
    List<IValue> values = new ArrayList<>();
    for (String in : inputs) {
      if (isFile(in)) {
        try {
          values.add(new IValue(TensorFiles.tensor(Path.of(in.strip()))));
        } catch (TensorFiles.Unusable e) {
          return new ModelInfo.Forward("--input '" + in + "': " + e.getMessage(), null, null, null);
        }
        continue;
      }
      Optional<IValue> v = input(in, gen);
      if (v.isEmpty()) {
        return new ModelInfo.Forward("--input '" + in + "' is not a value: expected DTYPE[d0,d1,...]"
            + " (e.g. float32[16,16]), int:N, float:X, bool:B or a .pt file", null, null, null);
      }
      values.add(v.get());
    }
    IValue result;
    try {
      result = ScriptModules.forward(module, values);
    } catch (RuntimeException e) {
      return new ModelInfo.Forward(null, NativeStrings.firstLine(e.getMessage()), null, null);
    }
    List<ModelInfo.Output> outputs = new ArrayList<>();
    describe("output", result, outputs);
    return new ModelInfo.Forward(null, null, outputs, expect.map(file -> compare(result, file)).orElse(null));
  }

  /** Whether an input names a file saved by torch.save rather than a value to generate. */
  public static boolean isFile(String input) {
    return input.strip().endsWith(".pt");
  }

  /**
   * forward's {@code result} beside the tensors {@code file} holds: the same structure, then each tensor
   * within torch.testing's per-dtype tolerance (NaN at the same positions counts as equal).
   */
  private static ModelInfo.Expectation compare(IValue result, Path file) {
    IValue saved;
    try {
      saved = TensorFiles.load(file);
    } catch (TensorFiles.Unusable e) {
      return new ModelInfo.Expectation(e.getMessage(), 0, null);
    }
    List<TensorFiles.Labelled> expected = TensorFiles.tensors("output", saved);
    if (expected == null) {
      return new ModelInfo.Expectation(file + " holds " + ScriptModels.kind(saved)
          + ", not a tensor or a tuple or list of tensors", 0, null);
    }
    List<TensorFiles.Labelled> actual = TensorFiles.tensors("output", result);
    if (actual == null) {
      return new ModelInfo.Expectation(null, 0, new ModelInfo.Difference(
          "forward gives " + ScriptModels.kind(result) + ", which holds more than tensors", List.of()));
    }
    List<String> want = expected.stream().map(TensorFiles.Labelled::label).toList();
    List<String> got = actual.stream().map(TensorFiles.Labelled::label).toList();
    if (!want.equals(got)) {
      return new ModelInfo.Expectation(null, 0, new ModelInfo.Difference(
          "forward gives " + String.join(", ", got) + " where " + file.getFileName() + " holds " + String.join(", ", want),
          List.of()));
    }
    for (int i = 0; i < expected.size(); i++) {
      Optional<ValueComparison.Mismatch> m = ValueComparison.compare(actual.get(i).label(),
          expected.get(i).tensor(), actual.get(i).tensor().cpu(), Optional.empty());
      if (m.isPresent()) {
        return new ModelInfo.Expectation(null, i,
            new ModelInfo.Difference(m.get().butWas(), m.get().details(), m.get().heatmaps()));
      }
    }
    return new ModelInfo.Expectation(null, expected.size(), null);
  }

  private static void describe(String label, IValue v, List<ModelInfo.Output> out) {
    if (v.isTensor()) {
      Tensor t = v.toTensor();
      out.add(new ModelInfo.Output(label, TensorSpec.dtypeName(t.scalar_type()) + Arrays.toString(t.sizes().vec().get())));
    } else if (v.isTuple()) {
      var elements = v.toTuple().elements();
      for (long i = 0; i < elements.size(); i++) {
        describe(label + " " + i, new IValue(elements.get(i)), out);
      }
    } else if (v.isTensorList()) {
      var list = v.toTensorVector();
      for (long i = 0; i < list.size(); i++) {
        describe(label + "[" + i + "]", new IValue(list.get(i)), out);
      }
    } else {
      out.add(new ModelInfo.Output(label, ScriptModels.kind(v)));
    }
  }

  /**
   * One forward input: {@code float32[16,16]} (or {@code [16,16]}, float32) is a tensor of uniform
   * values in [0, 1), {@code int:8}, {@code float:0.5} and {@code bool:true} are scalars; empty when
   * the text is none of these.
   */
  public static Optional<IValue> input(String text, GeneratorOptional gen) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    try {
      if (t.startsWith("int:")) {
        return Optional.of(new IValue(Long.parseLong(t.substring(4))));
      }
      if (t.startsWith("float:")) {
        return Optional.of(new IValue(Double.parseDouble(t.substring(6))));
      }
      if (t.startsWith("bool:")) {
        return Optional.of(new IValue(Boolean.parseBoolean(t.substring(5))));
      }
      int open = t.indexOf('[');
      if (open >= 0 && t.endsWith("]")) {
        String dtype = open == 0 ? "float32" : t.substring(0, open);
        String dims = t.substring(open + 1, t.length() - 1).strip();
        long[] shape = dims.isEmpty() ? new long[0]
            : Arrays.stream(dims.split(",")).map(String::strip).mapToLong(Long::parseLong).toArray();
        Optional<torch.ScalarType> st = TensorSpec.dtypeOf(dtype);
        if (st.isPresent()) {
          TensorOptions f64 = new TensorOptions().dtype(new ScalarTypeOptional(torch.ScalarType.Double));
          return Optional.of(new IValue(torch.rand(shape, gen, f64).to(st.get())));
        }
      }
    } catch (NumberFormatException e) {
      // not a value
    }
    return Optional.empty();
  }
}
