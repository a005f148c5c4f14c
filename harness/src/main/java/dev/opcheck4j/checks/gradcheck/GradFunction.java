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
 *
 * <p>{@link #backward} makes the op's backward a function of the same kind, whose Jacobian is the op's
 * second derivative: gradgradcheck compares it with finite differences of the backward.
 */
public final class GradFunction {
  private final Subject subject;
  private final Device device;
  final List<Integer> argIndices = new ArrayList<>();
  /** The differentiable arguments' names, in argument order. */
  public final List<String> names = new ArrayList<>();
  final List<long[]> shapes = new ArrayList<>();
  final boolean upcast;
  /** When this function is the backward of an op's function, what it differentiates; else null. */
  private final Backward of;
  int forwardCalls;
  int backwardCalls;

  /**
   * The backward of {@code op} at the grad_outputs {@code v}: its values are the op's (their first
   * {@code arity}) followed by one grad_output per output in {@code outputs}.
   *
   * @param op the op's function
   * @param arity how many of the values are the op's arguments
   * @param outputs which of the op's floating outputs the grad_outputs belong to (those that require grad)
   */
  private record Backward(GradFunction op, int arity, List<Integer> outputs) {}

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
    this.of = null;
  }

  private GradFunction(GradFunction op, Backward of, List<String> gradNames, List<long[]> gradShapes) {
    this.subject = op.subject;
    this.device = op.device;
    this.upcast = op.upcast;
    this.of = of;
    argIndices.addAll(op.argIndices);
    names.addAll(op.names);
    shapes.addAll(op.shapes);
    for (int k = 0; k < gradNames.size(); k++) {
      argIndices.add(of.arity() + k);
      names.add(gradNames.get(k));
      shapes.add(gradShapes.get(k));
    }
  }

  /**
   * The op's backward as a function of the op's differentiable inputs x and one grad_output v per
   * output that requires grad at {@code probe}: (x, v) ↦ vᵀJ(x), the input gradients that exist,
   * computed with create_graph so that autograd can differentiate them again. This is gradgradcheck's
   * {@code new_func}; the values of {@code v} are {@link #fresh}'s starting point, as gradgradcheck's
   * random grad_outputs are.
   *
   * @param at a binding of the op whose inputs require grad
   * @param probe the op's floating outputs at {@code at}
   * @param v the grad_outputs, one per output of {@code probe} that requires grad, float64
   */
  GradFunction backward(BoundExample at, List<OpCall.Output> probe, List<Tensor> v) {
    List<Integer> outputs = new ArrayList<>();
    List<String> gradNames = new ArrayList<>();
    List<long[]> gradShapes = new ArrayList<>();
    for (int o = 0; o < probe.size(); o++) {
      if (probe.get(o).tensor().requires_grad()) {
        outputs.add(o);
        gradNames.add("grad_output " + o);
        gradShapes.add(probe.get(o).tensor().sizes().vec().get());
      }
    }
    GradFunction b = new GradFunction(this, new Backward(this, at.values().size(), outputs), gradNames, gradShapes);
    b.gradOutputs.addAll(v);
    return b;
  }

  /** The grad_outputs of a backward's starting point (empty for an op's own function). */
  private final List<Tensor> gradOutputs = new ArrayList<>();

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
    if (of != null) {
      BoundExample ex = of.op().fresh(requiresGrad);
      List<IValue> values = new ArrayList<>(ex.values());
      for (Tensor v : gradOutputs) {
        Tensor c = v.detach().clone();
        if (requiresGrad) {
          c.set_requires_grad(true);
        }
        values.add(new IValue(c));
      }
      return new BoundExample(values, ex.tensors(), ex.description());
    }
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
    if (of != null) {
      return backwardAt(ex);
    }
    return OpCall.call(subject, ex).tensors().stream().filter(o -> o.tensor().is_floating_point()).toList();
  }

  /**
   * gradgradcheck's {@code new_func}: the op's inputs require grad again (a perturbed copy is a plain
   * leaf), the op runs, and autograd's gradients of its outputs at the grad_outputs, with create_graph,
   * are the outputs; an input autograd gives no gradient is left out, as gradgradcheck leaves out None.
   */
  private List<OpCall.Output> backwardAt(BoundExample ex) throws OpCall.KernelError {
    List<IValue> opValues = new ArrayList<>(ex.values().subList(0, of.arity()));
    List<Tensor> x = new ArrayList<>();
    for (int index : of.op().argIndices) {
      Tensor t = new Tensor(opValues.get(index).toTensor());
      if (!t.requires_grad()) {
        t.set_requires_grad(true);
      }
      x.add(t);
    }
    List<OpCall.Output> outs = of.op().forward(new BoundExample(opValues, ex.tensors(), ex.description()));
    List<Tensor> ys = new ArrayList<>();
    List<Tensor> vs = new ArrayList<>();
    for (int k = 0; k < of.outputs().size(); k++) {
      ys.add(outs.get(of.outputs().get(k)).tensor());
      vs.add(new Tensor(ex.values().get(of.arity() + k).toTensor()));
    }
    TensorVector grads = grad(ys, x, vs, true);
    List<OpCall.Output> out = new ArrayList<>();
    for (int k = 0; k < x.size(); k++) {
      Tensor g = new Tensor(grads.get(k));
      if (g.defined()) {
        out.add(new OpCall.Output("grad " + of.op().names.get(k), k, g));
      }
    }
    return out;
  }

  /**
   * autograd's gradients; on a backward, an error autograd raises (a derivative aten does not
   * implement) is the op's, as the kernel's own errors are.
   */
  private TensorVector grad(List<Tensor> outputs, List<Tensor> inputs, List<Tensor> vs, boolean createGraph)
      throws OpCall.KernelError {
    try {
      return torch.grad(new TensorVector(outputs.toArray(new Tensor[0])), new TensorVector(inputs.toArray(new Tensor[0])),
          new TensorVector(vs.toArray(new Tensor[0])), new BoolOptional(true), createGraph, true);
    } catch (RuntimeException e) {
      if (of == null) {
        throw e; // the op's own backward is aten's: an error there is the harness's to report
      }
      throw new OpCall.KernelError(dev.opcheck4j.torch.NativeStrings.firstLine(e.getMessage()));
    }
  }

  /** vᵀJ for one output: the gradient of {@code output} w.r.t. the inputs, seeded with {@code v}. */
  List<Tensor> vjp(Tensor output, List<Tensor> inputs, Tensor v) throws OpCall.KernelError {
    backwardCalls++;
    TensorVector grads = grad(List.of(output), inputs, List.of(v), false);
    List<Tensor> out = new ArrayList<>();
    for (int k = 0; k < inputs.size(); k++) {
      Tensor g = new Tensor(grads.get(k)); // own it: vector elements are references
      out.add(g.defined() ? g : torch.zeros_like(inputs.get(k)));
    }
    return out;
  }

  /** vᵀJ for several outputs at once. */
  public List<Tensor> vjp(List<Tensor> outputs, List<Tensor> inputs, List<Tensor> vs) throws OpCall.KernelError {
    backwardCalls++;
    TensorVector grads = grad(outputs, inputs, vs, false);
    List<Tensor> out = new ArrayList<>();
    for (int k = 0; k < inputs.size(); k++) {
      Tensor g = new Tensor(grads.get(k));
      out.add(g.defined() ? g : null);
    }
    return out;
  }
}
