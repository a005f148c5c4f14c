package dev.opcheck4j.checks.autograd;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.fake.FakeMissingCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorSpec;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.NativeStrings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bytedeco.pytorch.BoolOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * Forward then backward on meta copies succeeds, and each input gradient has its input's shape and
 * dtype: the part of opcheck's aot_dispatch tests that runs without Python. A backward that only
 * works on real data breaks torch.compile. Runs on meta only.
 */
public final class MetaBackwardCheck extends CheckBase implements ExampleCheck {
  public static final String ID = "autograd.meta";

  public MetaBackwardCheck() {
    super(Declaration.error(ID, "forward and backward run on meta tensors, with gradients shaped like their inputs")
        .requires(FakeMissingCheck.ID, dev.opcheck4j.checks.kernel.KernelErrorCheck.ID));
  }

  @Override
  public boolean appliesTo(Device device) {
    return device == Device.META;
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample ex = OpCall.bind(s, Device.META);
    List<Tensor> inputs = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (BoundExample.TensorInput in : ex.tensors()) {
      if (in.tensor().requires_grad()) {
        inputs.add(in.tensor());
        names.add(in.argument());
      }
    }
    if (inputs.isEmpty()) {
      return Verdict.skipped("no input requires grad in this example (set \"requires_grad\": true)");
    }
    List<Tensor> outputs = new ArrayList<>();
    for (OpCall.Output o : OpCall.call(s, ex).tensors()) {
      if (o.tensor().requires_grad()) {
        outputs.add(o.tensor());
      }
    }
    if (outputs.isEmpty()) {
      return Verdict.skipped("no output requires grad on meta (no autograd registered; see autograd.registration)");
    }
    List<Tensor> seeds = new ArrayList<>();
    for (Tensor o : outputs) {
      seeds.add(torch.ones_like(o));
    }
    Fact example = OpCall.exampleFact(s, ex);
    TensorVector grads;
    try {
      grads = torch.grad(new TensorVector(outputs.toArray(new Tensor[0])), new TensorVector(inputs.toArray(new Tensor[0])),
          new TensorVector(seeds.toArray(new Tensor[0])), new BoolOptional(false), false, true);
    } catch (RuntimeException e) {
      String raised = NativeStrings.firstLine(e.getMessage());
      return Verdict.failed(Finding.of("backward runs on meta tensors",
          "backward raised on meta: " + raised,
          "the backward calls an op with no Meta kernel (or reads data); torch.compile traces backward on"
              + " fake tensors, so every op in it needs a meta implementation",
          new Cause.Rejection(raised)), example);
    }
    for (int k = 0; k < inputs.size(); k++) {
      Tensor g = new Tensor(grads.get(k)); // own it: vector elements are references
      if (!g.defined()) {
        continue;
      }
      long[] gs = g.sizes().vec().get();
      long[] is = inputs.get(k).sizes().vec().get();
      if (!Arrays.equals(gs, is) || g.scalar_type().intern() != inputs.get(k).scalar_type().intern()) {
        return Verdict.failed(Finding.of("the gradient of '" + names.get(k) + "' has its shape and dtype",
            "grad " + TensorSpec.dtypeName(g.scalar_type()) + Arrays.toString(gs) + " for input "
                + TensorSpec.dtypeName(inputs.get(k).scalar_type()) + Arrays.toString(is),
            "make the backward return gradients shaped like the inputs (sum over broadcast dims)",
            new Cause.MetadataMismatch("gradient of '" + names.get(k) + "'", "shape and dtype")), example);
      }
    }
    return Verdict.passed(Fact.of("gradients", inputs.size()));
  }
}
