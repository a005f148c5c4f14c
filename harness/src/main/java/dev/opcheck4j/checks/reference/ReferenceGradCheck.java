package dev.opcheck4j.checks.reference;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.ValueComparison;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.gradcheck.GradFunction;
import dev.opcheck4j.checks.gradcheck.Preconditions;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.Reference;
import dev.opcheck4j.torch.NativeStrings;
import dev.opcheck4j.torch.ReferenceFunction;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * The op's gradients equal the spec's reference's: both run on the same float64 inputs, both are
 * differentiated with the same random grad_outputs, and the input gradients are compared within the
 * spec's tolerance. gradcheck.jacobian checks a backward against the op's own forward only; a forward
 * whose values pass reference.values but whose derivative is not the reference's fails here alone. An
 * input on which the values already differ is reference.values' finding, and Skipped here.
 */
public final class ReferenceGradCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "reference.grad";

  public ReferenceGradCheck() {
    super(Declaration.error(ID, "gradients equal the spec's reference's gradients on the same inputs and grad_outputs")
        .requires(ReferenceValuesCheck.ID)
        .onGeneratedInputs());
  }

  @Override
  public Optional<String> missingFrom(OpSpec spec) {
    return ReferenceValuesCheck.undeclared(spec);
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    Optional<String> missing = ReferenceValuesCheck.undeclared(s.spec());
    if (missing.isPresent()) {
      return Verdict.skipped(missing.get());
    }
    if (s.op().schema().returns().isEmpty()) {
      return Verdict.skipped("the op returns nothing: an (a!) argument written in place has no gradient to compare");
    }
    GradFunction f = GradFunction.of(s, s.device());
    String skip = Preconditions.skipReason(s, f);
    if (skip != null) {
      return Verdict.skipped(skip);
    }
    Reference reference = s.spec().reference().get();
    ReferenceValuesCheck.Compiled compiled = ReferenceValuesCheck.Compiled.of(s);
    if (compiled.error() != null) {
      return compiled.error();
    }
    ReferenceFunction function = compiled.function();
    BoundExample ex;
    List<OpCall.Output> outs;
    try {
      ex = f.fresh(true);
      outs = f.forward(ex);
    } catch (OpCall.KernelError e) {
      return Verdict.skipped("the op rejects float64 copies of the example (" + e.getMessage() + ")");
    }
    BoundExample forReference = f.fresh(true);
    List<IValue> expected;
    try {
      expected = function.call(forReference.values());
    } catch (RuntimeException e) {
      return Verdict.skipped("the reference raised on float64 copies of the example: "
          + NativeStrings.firstLine(e.getMessage()));
    }
    List<Tensor> opOutputs = new ArrayList<>();
    List<Tensor> referenceOutputs = new ArrayList<>();
    java.util.Map<String, Tensor> referenceTensors = byLabel(expected);
    for (OpCall.Output o : outs) {
      if (!o.tensor().requires_grad()) {
        continue;
      }
      Tensor rt = referenceTensors.get(o.label());
      if (rt == null) {
        return Verdict.skipped(o.label() + " is a tensor where the reference gives none: reference.values says how they differ");
      }
      if (!rt.requires_grad()) {
        return Verdict.skipped("the reference's value for " + o.label() + " does not depend differentiably on the inputs"
            + " (it does not require grad): nothing to compare the op's gradient with");
      }
      opOutputs.add(o.tensor());
      referenceOutputs.add(rt);
    }
    if (opOutputs.isEmpty()) {
      return Verdict.skipped("no output requires grad: there is no backward to check (gradcheck.jacobian holds the"
          + " example's requested gradient to gradcheck's rule for functions with no differentiable output)");
    }
    Optional<OpSpec.Tolerance> tolerance =
        Optional.of(s.spec().tolerance().orElse(ValueComparison.defaultTolerance(torch.ScalarType.Double)));
    for (int k = 0; k < opOutputs.size(); k++) {
      if (ValueComparison.compare("output", referenceOutputs.get(k).detach(), opOutputs.get(k).detach(), tolerance)
          .isPresent()) {
        return Verdict.skipped("the op's values differ from the reference's on this input (reference.values"
            + " tells how): the gradients of two different functions would say nothing more");
      }
    }
    SplittableRandom random = new SplittableRandom(s.seed());
    List<Tensor> gradOutputs = new ArrayList<>();
    for (Tensor o : opOutputs) {
      gradOutputs.add(randomLike(random, o));
    }
    List<Tensor> inputs = f.inputs(ex);
    List<Tensor> opGrads = f.vjp(opOutputs, inputs, gradOutputs);
    List<Tensor> referenceGrads = f.vjp(referenceOutputs, f.inputs(forReference), gradOutputs);
    for (int k = 0; k < opGrads.size(); k++) {
      Tensor input = inputs.get(k);
      Tensor actual = opGrads.get(k) == null ? torch.zeros_like(input) : opGrads.get(k);
      Tensor want = referenceGrads.get(k) == null ? torch.zeros_like(input) : referenceGrads.get(k);
      Optional<ValueComparison.Mismatch> m =
          ValueComparison.compare("gradient of '" + f.names.get(k) + "'", want, actual, tolerance);
      if (m.isPresent()) {
        return Verdict.failed(m.get().finding(
                "the gradients of the spec's reference: " + reference.source().strip(),
                "the op's derivative is not the reference's: its backward (or the aten ops its composite is"
                    + " built from) differentiates another function than the one its values approximate"),
            Fact.of("grad_outputs", "random, seeded, the same for the op and the reference"),
            OpCall.exampleFact(s, ex));
      }
    }
    return Verdict.passed(Fact.of("gradients compared", opGrads.size() + " input" + (opGrads.size() == 1 ? "" : "s")
        + " in " + f.dtypeNote()));
  }

  /** The reference's tensors labelled as {@link OpCall} labels the op's: {@code output i}, {@code output i[j]}. */
  private static java.util.Map<String, Tensor> byLabel(List<IValue> values) {
    java.util.Map<String, Tensor> out = new java.util.HashMap<>();
    for (int i = 0; i < values.size(); i++) {
      IValue v = values.get(i);
      if (v.isTensor()) {
        out.put("output " + i, v.toTensor());
      } else if (v.isTensorList()) {
        var list = v.toTensorVector();
        for (long j = 0; j < list.size(); j++) {
          out.put("output " + i + "[" + j + "]", new Tensor(list.get(j)));
        }
      }
    }
    return out;
  }

  /** Values in [-1, 1) drawn from {@code random}, float64, shaped like {@code like}. */
  private static Tensor randomLike(SplittableRandom random, Tensor like) {
    double[] v = new double[(int) like.numel()];
    for (int i = 0; i < v.length; i++) {
      v[i] = random.nextDouble() * 2 - 1;
    }
    return org.bytedeco.pytorch.AbstractTensor.create(v).to(like.device(), torch.ScalarType.Double)
        .reshape(like.sizes().vec().get());
  }
}
