package dev.opcheck4j.checks.gradcheck;

import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.BoolOptional;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * The operator as a differentiable function of the example's tensor arguments that require grad,
 * evaluated in float64 (lower-precision floating examples are checked on float64 copies). Counts
 * the forward and backward calls it makes. reference.grad differentiates the spec's reference with it too.
 */
public final class GradFunction {
  private final Subject subject;
  private final Device device;
  final List<Integer> argIndices = new ArrayList<>();
  /** The differentiable arguments' names, in argument order. */
  public final List<String> names = new ArrayList<>();
  final List<long[]> shapes = new ArrayList<>();
  final boolean upcast;
  int forwardCalls;
  int backwardCalls;

  private GradFunction(Subject subject, Device device, BoundExample probe) {
    this.subject = subject;
    this.device = device;
    boolean up = false;
    for (BoundExample.TensorInput in : probe.tensors()) {
      boolean topLevel = probe.values().get(in.argIndex()).isTensor();
      if (topLevel && in.tensor().requires_grad() && in.tensor().is_floating_point()) {
        argIndices.add(in.argIndex());
        names.add(in.argument());
        shapes.add(in.tensor().sizes().vec().get());
      }
      up |= in.tensor().is_floating_point() && in.tensor().scalar_type().intern() != torch.ScalarType.Double;
    }
    this.upcast = up;
  }

  public static GradFunction of(Subject s, Device device) throws ExampleException {
    return new GradFunction(s, device, OpCall.bind(s, device));
  }

  boolean hasInputs() {
    return !argIndices.isEmpty();
  }

  public String dtypeNote() {
    return upcast ? "float64 (the example's floating tensors checked on float64 copies)" : "float64";
  }

  /**
   * A fresh binding with every floating tensor as a float64 leaf in the example's own layout (sizes,
   * strides, storage offset: a kernel that misreads a generated layout must misread it here too);
   * differentiable ones require grad.
   */
  public BoundExample fresh(boolean requiresGrad) throws ExampleException {
    BoundExample ex = OpCall.bind(subject, device);
    List<IValue> values = new ArrayList<>(ex.values());
    List<BoundExample.TensorInput> tensors = new ArrayList<>();
    for (BoundExample.TensorInput in : ex.tensors()) {
      Tensor t = in.tensor();
      if (values.get(in.argIndex()).isTensor() && t.is_floating_point()) {
        boolean diff = argIndices.contains(in.argIndex());
        Tensor c = TensorCopies.sameLayout(t.detach(), device, torch.ScalarType.Double);
        if (diff && requiresGrad) {
          c.set_requires_grad(true);
        }
        values.set(in.argIndex(), new IValue(c));
        tensors.add(new BoundExample.TensorInput(in.argument(), in.argIndex(), c));
      } else {
        tensors.add(in);
      }
    }
    return new BoundExample(values, tensors, ex.description());
  }

  /** A detached copy of {@code x} in its layout (sizes, strides, storage offset), for perturbing in place. */
  Tensor copy(Tensor x) {
    return TensorCopies.sameLayout(x.detach(), device);
  }

  /** The differentiable inputs of a binding, in argument order. */
  public List<Tensor> inputs(BoundExample ex) {
    List<Tensor> out = new ArrayList<>();
    for (int index : argIndices) {
      out.add(new Tensor(ex.values().get(index).toTensor()));
    }
    return out;
  }

  /** A binding with the differentiable inputs replaced. */
  BoundExample with(BoundExample ex, List<Tensor> inputs) {
    List<IValue> values = new ArrayList<>(ex.values());
    for (int k = 0; k < argIndices.size(); k++) {
      values.set(argIndices.get(k), new IValue(inputs.get(k)));
    }
    return new BoundExample(values, ex.tensors(), ex.description());
  }

  /** Calls the op and returns its floating-point output tensors, labelled. */
  public List<OpCall.Output> forward(BoundExample ex) throws OpCall.KernelError {
    forwardCalls++;
    return OpCall.call(subject, ex).tensors().stream().filter(o -> o.tensor().is_floating_point()).toList();
  }

  /** vᵀJ for one output: the gradient of {@code output} w.r.t. the inputs, seeded with {@code v}. */
  List<Tensor> vjp(Tensor output, List<Tensor> inputs, Tensor v) {
    backwardCalls++;
    TensorVector grads = torch.grad(new TensorVector(output), new TensorVector(inputs.toArray(new Tensor[0])),
        new TensorVector(v), new BoolOptional(true), false, true);
    List<Tensor> out = new ArrayList<>();
    for (int k = 0; k < inputs.size(); k++) {
      Tensor g = new Tensor(grads.get(k)); // own it: vector elements are references
      out.add(g.defined() ? g : torch.zeros_like(inputs.get(k)));
    }
    return out;
  }

  /** vᵀJ for several outputs at once. */
  public List<Tensor> vjp(List<Tensor> outputs, List<Tensor> inputs, List<Tensor> vs) {
    backwardCalls++;
    TensorVector grads = torch.grad(new TensorVector(outputs.toArray(new Tensor[0])),
        new TensorVector(inputs.toArray(new Tensor[0])), new TensorVector(vs.toArray(new Tensor[0])),
        new BoolOptional(true), false, true);
    List<Tensor> out = new ArrayList<>();
    for (int k = 0; k < inputs.size(); k++) {
      Tensor g = new Tensor(grads.get(k));
      out.add(g.defined() ? g : null);
    }
    return out;
  }
}
