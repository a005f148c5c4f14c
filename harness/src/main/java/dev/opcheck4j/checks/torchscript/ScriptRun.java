package dev.opcheck4j.checks.torchscript;

import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.ScriptModules;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.JitModule;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;

/** What the TorchScript checks share: the arguments a call gives, running a module, comparing outputs. */
final class ScriptRun {
  private ScriptRun() {}

  /** Schema indices of the arguments the example gives (positionally or by keyword); the rest take defaults. */
  static Set<Integer> given(Subject s) {
    Set<Integer> given = new TreeSet<>();
    List<OpSchema.Argument> args = s.op().schema().arguments();
    for (int i = 0; i < args.size(); i++) {
      if (i < s.example().args().size() || s.example().kwargs().containsKey(args.get(i).name())) {
        given.add(i);
      }
    }
    return given;
  }

  /** The direct dispatcher call's observed outputs on a fresh binding of the example. */
  static List<OpCall.Output> direct(Subject s) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    return OpCall.observed(s, ex, OpCall.call(s, ex));
  }

  /**
   * Runs {@code module.forward} on a fresh binding of the example, giving it the arguments at
   * {@code given}, and returns what it produced in the order {@link OpCall#observed} uses.
   */
  static List<OpCall.Output> run(Subject s, JitModule module, Set<Integer> given) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    List<IValue> inputs = new ArrayList<>();
    for (int i : given) {
      inputs.add(new IValue(ex.values().get(i)));
    }
    IValue result;
    OpCall.seedIfTagged(s);
    try {
      result = ScriptModules.forward(module, inputs);
    } catch (RuntimeException e) {
      throw new OpCall.KernelError(dev.opcheck4j.torch.NativeStrings.firstLine(e.getMessage()));
    }
    List<IValue> values = new ArrayList<>();
    int returns = s.op().schema().returns().size();
    if (returns > 1) {
      var tuple = result.toTuple().elements();
      for (long i = 0; i < tuple.size(); i++) {
        values.add(new IValue(tuple.get(i)));
      }
    } else if (returns == 1) {
      values.add(result);
    }
    List<OpCall.Output> out = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      IValue v = values.get(i);
      if (v.isTensor()) {
        out.add(new OpCall.Output("output " + i, i, new Tensor(v.toTensor())));
      } else if (v.isTensorList()) {
        TensorVector list = v.toTensorVector();
        for (long j = 0; j < list.size(); j++) {
          out.add(new OpCall.Output("output " + i + "[" + j + "]", i, new Tensor(list.get(j))));
        }
      }
    }
    for (BoundExample.TensorInput in : ex.tensors()) {
      if (s.op().schema().arguments().get(in.argIndex()).isWrite()) {
        out.add(new OpCall.Output("argument '" + in.argument() + "' after the call", -1, in.tensor()));
      }
    }
    return out;
  }

  /** How {@code actual} differs from {@code expected}, bitwise; empty when it does not. */
  static Optional<String> difference(List<OpCall.Output> expected, List<OpCall.Output> actual) {
    if (expected.size() != actual.size()) {
      return Optional.of(actual.size() + " output tensors where the direct call gave " + expected.size());
    }
    for (int i = 0; i < expected.size(); i++) {
      Tensor x = expected.get(i).tensor();
      Tensor y = actual.get(i).tensor();
      String label = expected.get(i).label();
      long[] xs = x.sizes().vec().get();
      long[] ys = y.sizes().vec().get();
      if (!Arrays.equals(xs, ys)) {
        return Optional.of(label + " has sizes " + Arrays.toString(ys) + ", the direct call's " + Arrays.toString(xs));
      }
      if (x.scalar_type().intern() != y.scalar_type().intern()) {
        return Optional.of(label + " is " + y.scalar_type().intern() + ", the direct call's " + x.scalar_type().intern());
      }
      Optional<String> diff = TensorCopies.bitwiseDifference(x, y);
      if (diff.isPresent()) {
        return Optional.of(label + ": " + diff.get() + " from the direct call");
      }
    }
    return Optional.empty();
  }
}
