package dev.opcheck4j.checks.tags;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import java.util.Optional;

/**
 * An op tagged {@code inplace_view} returns its mutated input, or a view of it: the tag says the op only
 * changes that input's metadata in place (as {@code aten::unsqueeze_} and {@code aten::t_} do), and
 * FakeTensor and functionalization treat it so. PyTorch's own test_tags checks the converse only (an op
 * that changes its input's sizes in place carries the tag), so a tag that lies this way is a warning.
 */
public final class InplaceViewCheck extends CheckBase implements ExampleCheck {
  public static final String ID = "tags.inplace-view";

  public InplaceViewCheck() {
    super(Declaration.warning(ID, "an op tagged inplace_view returns its mutated input or a view of it")
        .requires(KernelErrorCheck.ID));
  }

  @Override
  public boolean appliesTo(OpTags tags) {
    return tags.has(OpTags.INPLACE_VIEW);
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    String tag = OpTags.of(s).describe(OpTags.INPLACE_VIEW);
    BoundExample ex = OpCall.bind(s, s.device());
    Optional<BoundExample.TensorInput> mutated = ex.tensors().stream()
        .filter(t -> s.op().schema().arguments().get(t.argIndex()).isWrite()).findFirst();
    if (mutated.isEmpty()) {
      return Verdict.failed(Finding.of(
          "an op tagged " + tag + " declares the tensor it changes in place, Tensor(a!)",
          "no Tensor(a!) argument in " + s.op().schema(),
          "declare the argument whose sizes or strides the op changes Tensor(a!), or drop the inplace_view tag",
          new Cause.Contract("inplace_view without a mutated argument", s.op().name())), OpCall.exampleFact(s, ex));
    }
    BoundExample.TensorInput in = mutated.get();
    OpCall.Outputs out = OpCall.call(s, ex);
    String expected = "output 0 of an op tagged " + tag + " is its mutated argument '" + in.argument()
        + "' or a view of it";
    if (out.tensors().isEmpty()) {
      return Verdict.failed(Finding.of(expected, "the op returns no tensor",
          "return '" + in.argument() + "' (declared '-> Tensor(a!)'), or drop the inplace_view tag",
          new Cause.Contract("inplace_view returns no view", s.op().name())), OpCall.exampleFact(s, ex));
    }
    OpCall.Output first = out.tensors().get(0);
    if (first.tensor().is_same(in.tensor())) {
      return Verdict.passed(Fact.of("returned", first.label() + " is '" + in.argument() + "' itself"), Fact.of("tag", tag));
    }
    if (first.tensor().is_alias_of(in.tensor())) {
      return Verdict.passed(Fact.of("returned", first.label() + " is a view of '" + in.argument() + "'"), Fact.of("tag", tag));
    }
    return Verdict.failed(Finding.of(expected,
        first.label() + " shares no memory with '" + in.argument() + "': a new tensor",
        "an inplace_view op changes only the sizes or strides of its argument and returns it (as aten::t_ does);"
            + " an op that computes a new tensor is no inplace_view op: drop the tag",
        new Cause.Contract("inplace_view returns a new tensor", first.label())), OpCall.exampleFact(s, ex));
  }
}
