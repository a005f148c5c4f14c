package dev.opcheck4j.checks.variant;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Coverage;
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
import dev.opcheck4j.api.NumberText;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.generate.TensorText;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.VariantOf;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.Operator;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;

/**
 * The in-place ({@code foo_}) and out= ({@code foo.out}, {@code foo_out}) members of a variant family
 * agree with the functional one ({@code foo}) of the same library, as OpInfo's {@code
 * test_variant_consistency_eager} asks of PyTorch's own ops: on the member's inputs, the functional op
 * runs on copies; the in-place member's first argument then holds the functional result, in the storage
 * it had, and each out argument of the out= member holds the functional output of its position, within
 * the spec's tolerance (else the per-dtype default). The check runs on the in-place and out= members,
 * so the finding lands on the op that disagrees.
 */
public final class VariantAgreementCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "variant.agree";

  public VariantAgreementCheck() {
    super(Declaration.error(ID, "in-place and out= variants give the functional variant's values, in place")
        .requires(KernelErrorCheck.ID)
        .onGeneratedInputs());
  }

  @Override
  public Optional<String> missingFrom(OpSpec spec) {
    if (spec.variantOf().filter(VariantOf::isNone).isPresent()) {
      return Optional.of(Coverage.NOT_APPLICABLE + "the spec says it is no variant (\"variant_of\": {\"none\": ...}): "
          + spec.variantOf().get().none());
    }
    return Family.of(spec).isPresent() ? Optional.empty()
        : Optional.of(Coverage.NOT_APPLICABLE + "not named like the in-place (foo_) or out= (foo.out, foo_out) variant"
            + " of another op, and the spec names no family (\"variant_of\")");
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    Family family = Family.of(s.spec()).orElseThrow();
    if (!s.library().ops().contains(family.functional())) {
      return Verdict.skipped("no functional variant " + family.functional() + " in the library to compare with");
    }
    Operator functional = s.library().op(family.functional());
    OpSchema fs = functional.schema();
    OpSchema ms = s.op().schema();
    List<Integer> written = written(family, ms, fs);
    if (written.isEmpty()) {
      return Verdict.skipped("its schema does not line up with " + fs + " (" + ms + "): no argument it writes"
          + " matches an output of the functional variant");
    }
    BoundExample ex = OpCall.bind(s, s.device());
    // the functional variant first, on copies of the inputs the member may write
    List<IValue> values = new ArrayList<>();
    List<BoundExample.TensorInput> tensors = new ArrayList<>();
    for (int i = 0; i < fs.arguments().size(); i++) {
      IValue v = ex.values().get(i);
      if (v.isTensor()) {
        Tensor copy = v.toTensor().detach().clone();
        values.add(new IValue(copy));
        tensors.add(new BoundExample.TensorInput(fs.arguments().get(i).name(), i, copy));
      } else {
        values.add(v);
      }
    }
    Subject f = new Subject(s.library(), functional, s.spec(), s.device(), s.example(), s.seed());
    List<OpCall.Output> expected;
    try {
      expected = OpCall.call(f, new BoundExample(values, tensors, ex.description())).tensors();
    } catch (OpCall.KernelError e) {
      return Verdict.skipped(family.functional() + " raised on these inputs (\"" + e.getMessage() + "\"): nothing to compare with");
    }
    List<Long> before = new ArrayList<>();
    for (int at : written) {
      before.add(address(ex.values().get(at).toTensor()));
    }
    try {
      OpCall.call(s, ex);
    } catch (OpCall.KernelError e) {
      return Verdict.skipped("the kernel raised on these inputs (\"" + e.getMessage() + "\"): see " + KernelErrorCheck.ID);
    }
    Fact example = OpCall.exampleFact(s, ex);
    for (int k = 0; k < written.size(); k++) {
      OpSchema.Argument arg = ms.arguments().get(written.get(k));
      Tensor got = ex.values().get(written.get(k)).toTensor();
      String label = "argument '" + arg.name() + "' after the call";
      if (k >= expected.size()) {
        return Verdict.skipped(family.functional() + " returns " + expected.size() + " tensors, fewer than the "
            + written.size() + " arguments " + s.op().name() + " writes");
      }
      if (family.inPlace() && address(got) != before.get(k)) {
        return Verdict.failed(Finding.of("the in-place variant writes '" + arg.name() + "' in its own storage",
            "'" + arg.name() + "' has other storage after the call (data_ptr changed)",
            "write into the argument (copy_ into it, or compute in place); never resize_ or set_ it",
            new Cause.Contract("in-place variant not in place", s.op().name())), example);
      }
      Optional<ValueComparison.Mismatch> m = ValueComparison.compare(label, expected.get(k).tensor(), got, s.spec().tolerance());
      if (m.isPresent()) {
        Finding finding = m.get().finding("'" + arg.name() + "' equals " + expected.get(k).label() + " of "
                + family.functional() + " on the same inputs (the " + family.kind() + " variant agrees with the functional one)",
            "make " + s.op().name() + " compute what " + family.functional() + " computes; if they are not one family,"
                + " say so in its spec entry: \"variant_of\": {\"none\": \"why\"}")
            .with(Fact.of(family.functional() + " gives", shown(expected.get(k).tensor())),
                Fact.of(s.op().name() + " gives", shown(got)));
        return Verdict.failed(finding, example);
      }
    }
    return Verdict.passed(Fact.of("family", family.functional() + " (functional), " + s.op().name() + " ("
        + family.kind() + ")"), Fact.of("compared", written.size() + " argument(s) with the functional outputs"), example);
  }

  /** Where {@code t}'s data starts, 0 for a tensor with none (no elements). */
  private static long address(Tensor t) {
    org.bytedeco.javacpp.Pointer p = t.data_ptr();
    return p == null ? 0 : p.address();
  }

  /** {@code t} described, with its first values in row-major order. */
  private static String shown(Tensor t) {
    double[] v = TensorCopies.doubles(t);
    StringBuilder sb = new StringBuilder(TensorText.describe(t)).append(" [");
    for (int i = 0; i < Math.min(SHOWN, v.length); i++) {
      sb.append(i > 0 ? ", " : "").append(NumberText.round(Double.toString(v[i])));
    }
    return sb.append(v.length > SHOWN ? ", ...]" : "]").toString();
  }

  /** How many values a fact shows of each side. */
  private static final int SHOWN = 6;

  /**
   * The member's arguments that should hold the functional outputs, in output order: the in-place
   * member's first argument, written, when it has the functional one's arguments; the out= member's
   * written tensor arguments after the functional one's. Empty when the schemas do not line up.
   */
  private static List<Integer> written(Family family, OpSchema member, OpSchema functional) {
    int n = functional.arguments().size();
    List<OpSchema.Argument> args = member.arguments();
    if (family.inPlace()) {
      return args.size() == n && n > 0 && args.get(0).isWrite() && args.get(0).type().isTensor() ? List.of(0) : List.of();
    }
    List<Integer> outs = new ArrayList<>();
    for (int i = n; i < args.size(); i++) {
      if (!args.get(i).isWrite() || !args.get(i).type().isTensor()) {
        return List.of();
      }
      outs.add(i);
    }
    return outs;
  }
}
