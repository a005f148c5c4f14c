package dev.opcheck4j.checks.reference;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.Reference;
import dev.opcheck4j.torch.NativeStrings;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.ReferenceFunction;
import dev.opcheck4j.torch.TensorFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * The op's outputs (for an op that returns nothing, its (a!) arguments after the call) equal what the
 * spec's {@code "reference"} computes from equal inputs, within the spec's tolerance. The reference is
 * TorchScript compiled by libtorch in the worker; a consistently wrong kernel keeps every contract and
 * fails only here.
 */
public final class ReferenceValuesCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "reference.values";

  public ReferenceValuesCheck() {
    super(Declaration.error(ID, "outputs equal the spec's reference expression within tolerance")
        .requires(KernelErrorCheck.ID)
        .onGeneratedInputs());
  }

  /** The reason a check says nothing about an op whose entry gives no reference expression. */
  static Optional<String> undeclared(OpSpec spec) {
    return spec.reference().isPresent() ? Optional.empty()
        : Optional.of("the spec gives no \"reference\" for this op: nothing to compare its values with");
  }

  /** The spec's reference compiled for the op, or the Errored verdict of a reference that does not compile. */
  record Compiled(ReferenceFunction function, Verdict error) {
    static Compiled of(Subject s) {
      Reference reference = s.spec().reference().get();
      try {
        return new Compiled(ReferenceFunction.compile(s.op().schema(), reference), null);
      } catch (ReferenceFunction.Invalid e) {
        return new Compiled(null, Verdict.errored(reference.location() + ": \"reference\" " + e.getMessage()));
      }
    }
  }

  @Override
  public Optional<String> missingFrom(OpSpec spec) {
    return spec.examples().stream().anyMatch(e -> e.expect().isPresent()) ? Optional.empty() : undeclared(spec);
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    if (s.example() != null && s.example().expect().isPresent()) {
      return compareWithFile(s, s.example().expect().get());
    }
    Optional<String> missing = undeclared(s.spec());
    if (missing.isPresent()) {
      return Verdict.skipped(missingFrom(s.spec()).isEmpty()
          ? "the spec gives no \"reference\" for this op: only its examples with \"expect\" are compared"
          : missing.get());
    }
    Reference reference = s.spec().reference().get();
    Compiled compiled = Compiled.of(s);
    if (compiled.error() != null) {
      return compiled.error();
    }
    ReferenceFunction function = compiled.function();
    BoundExample forReference = OpCall.bind(s, s.device());
    List<IValue> expected;
    try {
      expected = function.call(forReference.values());
    } catch (RuntimeException e) {
      return Verdict.errored("the reference raised on this input: " + NativeStrings.firstLine(e.getMessage()));
    }
    return compare(s, expected, "the values of the spec's reference: " + reference.source().strip(),
        "fix the kernel, or the reference if it is the one that is wrong (it runs on the same inputs)");
  }

  /** The example's outputs beside the tensors of its {@code "expect"} file. */
  private static Verdict compareWithFile(Subject s, Example.Expect expect) throws Exception {
    List<IValue> expected;
    try {
      expected = TensorFiles.outputs(expect.file(), ReferenceFunction.expectedValues(s.op().schema()));
    } catch (TensorFiles.Unusable e) {
      return Verdict.errored(expect.location() + ": \"expect\" " + e.getMessage());
    }
    // compared on the CPU, where the values are read
    return compare(s, expected, "the tensors of " + expect.file().getFileName() + " (\"expect\", saved by torch.save)",
        "fix the kernel, or save the file again if it is the one that is wrong (from this example's inputs)");
  }

  private static Verdict compare(Subject s, List<IValue> expected, String what, String hint) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    OpCall.Outputs out = OpCall.call(s, ex);
    OpSchema schema = s.op().schema();
    List<IValue> actual = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    if (schema.returns().isEmpty()) {
      for (int i = 0; i < schema.arguments().size(); i++) {
        if (schema.arguments().get(i).isWrite()) {
          actual.add(ex.values().get(i));
          labels.add("argument '" + schema.arguments().get(i).name() + "' after the call");
        }
      }
    } else {
      actual.addAll(out.values());
      for (int i = 0; i < actual.size(); i++) {
        labels.add("output " + i);
      }
    }
    int compared = 0;
    for (int i = 0; i < actual.size(); i++) {
      List<Pair> pairs = new ArrayList<>();
      Optional<ValueComparison.Mismatch> kinds = pair(labels.get(i), expected.get(i), actual.get(i), pairs);
      if (kinds.isPresent()) {
        return fail(s, ex, kinds.get(), what, hint);
      }
      for (Pair p : pairs) {
        Optional<ValueComparison.Mismatch> m = ValueComparison.compare(p.label(), p.expected(), p.actual(),
            s.spec().tolerance());
        if (m.isPresent()) {
          return fail(s, ex, m.get(), what, hint);
        }
        compared++;
      }
    }
    return Verdict.passed(Fact.of("values compared", compared + (compared == 1 ? " tensor" : " tensors")));
  }

  /** One tensor of the op beside the reference's. */
  private record Pair(String label, Tensor expected, Tensor actual) {}

  /**
   * Lays out the tensors of one value side by side (a tensor, or each element of a list; a number
   * becomes a 0-dim tensor); a value of another kind or length than the reference's is a mismatch.
   */
  private static Optional<ValueComparison.Mismatch> pair(String label, IValue expected, IValue actual, List<Pair> into) {
    if (expected.isTensor() && actual.isTensor()) {
      into.add(new Pair(label, expected.toTensor(), actual.toTensor()));
      return Optional.empty();
    }
    if (expected.isTensorList() && actual.isTensorList()) {
      TensorVector e = expected.toTensorVector();
      TensorVector a = actual.toTensorVector();
      if (e.size() != a.size()) {
        return Optional.of(new ValueComparison.Mismatch(new Cause.MetadataMismatch(label, "length"),
            label + " holds " + a.size() + " tensors instead of the reference's " + e.size(), List.of()));
      }
      for (long j = 0; j < e.size(); j++) {
        into.add(new Pair(label + "[" + j + "]", e.get(j), a.get(j)));
      }
      return Optional.empty();
    }
    if (number(expected) && number(actual)) {
      into.add(new Pair(label, scalar(expected), scalar(actual)));
      return Optional.empty();
    }
    return Optional.of(new ValueComparison.Mismatch(new Cause.MetadataMismatch(label, "kind"),
        label + " is " + actual.tagKind().getString() + " where the reference gives "
            + expected.tagKind().getString(), List.of()));
  }

  private static boolean number(IValue v) {
    return v.isDouble() || v.isInt() || v.isBool();
  }

  /** A returned number as a 0-dim float64 tensor. */
  private static Tensor scalar(IValue v) {
    double d = v.isDouble() ? v.toDouble() : v.isInt() ? v.toInt() : v.toBool() ? 1 : 0;
    return torch.scalar_tensor(new Scalar(d)).to(torch.ScalarType.Double);
  }

  private static Verdict fail(Subject s, BoundExample ex, ValueComparison.Mismatch m, String expected, String hint) {
    return Verdict.failed(m.finding(expected, hint), OpCall.exampleFact(s, ex));
  }

}
