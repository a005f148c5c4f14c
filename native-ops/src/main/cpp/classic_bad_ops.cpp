// Classic TORCH_LIBRARY code (torch/torch.h, torch::autograd::Function), the form PyTorch's C++ tutorials
// teach, built with the runtime's own headers (classic_op_library: the torch 2.13.0 wheel's). Each
// opcheck-equivalent family fails on classic code here: one defect per op, each introduced by `// OP:` and
// `// EXPECT:` with the check it must trip; the ops without EXPECT are the good twins, which pass every
// check. ClassicCorpusTests asserts both, on fixtures/specs/classic/classic_bad_ops.json.
//
// Real PyTorch 2.13.0 on this same source, built the same way and loaded with torch.ops.load_library
// (fixtures/specs/classic/real-opcheck.json holds every line it printed):
//   /root/.cache/opcheck4j/torch-2.13.0/bin/python /work/shared/tools/pytorch-opcheck.py
//     fixtures/specs/classic/classic_bad_ops.json native-ops/target/lib/libclassic_bad_ops.so
// Its verdict is quoted beside each op below ("real 2.13.0:").
#include <torch/torch.h>

#include <tuple>

namespace {
using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// An op of this library through the dispatcher: what an autograd kernel calls below autograd.
Tensor call(const char* op, const Tensor& x) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(op, "").typed<Tensor(const Tensor&)>().call(x);
}

// ---- Backend kernels only (no autograd kernel; the spec declares them "differentiable": false). The CPU
// kernels compute with aten under NoGradGuard, so they record no autograd history; the same function serves
// Meta, where aten's meta kernels give the CPU kernel's sizes and strides.
Tensor twice_kernel(const Tensor& x) {
  torch::NoGradGuard no_grad;
  return x * 2;
}

// OP: classic_bad_ops::twice
// The good twin of writes_input and meta_flattens: 2x, a CPU kernel and a Meta kernel. real 2.13.0: all pass.

// OP: classic_bad_ops::writes_input
// EXPECT: mutation.undeclared
// The classic undeclared write: the kernel adds 1 to x in place after computing 2x, and the schema says
// `Tensor x`, not `Tensor(a!) x`. real 2.13.0: test_schema fails ("Argument x is not defined as mutable but was
// mutated"), nothing else.
Tensor writes_input(const Tensor& x) {
  torch::NoGradGuard no_grad;
  Tensor out = x * 2;
  x.add_(1);
  return out;
}

// OP: classic_bad_ops::meta_flattens
// EXPECT: fake.metadata
// The Meta kernel gives the wrong shape: a flat [numel] where the CPU kernel keeps x's shape.
// real 2.13.0: test_faketensor fails ("Shapes torch.Size([4, 3]) and torch.Size([12]) are not equal!"), nothing else.
// (sym_numel: a Meta kernel written for symbolic shapes too, as torch.compile traces it)
Tensor meta_flattens_meta(const Tensor& x) { return at::empty_symint({x.sym_numel()}, x.options()); }

// ---- Autograd through torch::autograd::Function, registered at the Autograd key: its forward calls the op
// again below autograd (AutoDispatchBelowADInplaceOrView, as PyTorch's "Registering a Dispatched Operator in
// C++" tutorial does), which reaches the CPU or Meta kernel.
Tensor square_kernel(const Tensor& x) { return x * x; }

template <int64_t Factor>
struct SquareFn : public torch::autograd::Function<SquareFn<Factor>> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const char* op) {
    ctx->save_for_backward({x});
    at::AutoDispatchBelowADInplaceOrView below;
    return call(op, x);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    Tensor x = ctx->get_saved_variables()[0];
    return {grads[0] * Factor * x, Tensor()};
  }
};

// OP: classic_bad_ops::square
// The good twin of square_wrong_grad and function_at_cpu: x*x, backward 2x·grad. real 2.13.0: all pass, gradcheck too.
Tensor square(const Tensor& x) { return SquareFn<2>::apply(x, "classic_bad_ops::square"); }

// OP: classic_bad_ops::square_wrong_grad
// EXPECT: gradcheck.jacobian
// A wrong autograd::Function backward: 3x·grad for x*x. real 2.13.0: gradcheck fails ("Jacobian mismatch
// for output 0 with respect to input 0").
Tensor square_wrong_grad(const Tensor& x) {
  return SquareFn<3>::apply(x, "classic_bad_ops::square_wrong_grad");
}

// The classic mistake opcheck's test_autograd_registration names: an autograd::Function (with a right
// backward) registered at the CPU key instead of Autograd. Its forward computes x*x itself.
struct SquareAtCpuFn : public torch::autograd::Function<SquareAtCpuFn> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * 2 * ctx->get_saved_variables()[0]};
  }
};

// OP: classic_bad_ops::function_at_cpu
// EXPECT: autograd.registration
// Autograd recorded in a backend kernel: the Function is the CPU kernel, so with an input that requires grad
// its output requires grad although the op has no autograd kernel. real 2.13.0: test_autograd_registration
// fails, and so do test_faketensor ("mismatched requires_grad-ness of outputs": the fake output has no history)
// and test_aot_dispatch_dynamic (gradients differ under AOTDispatcher), the same defect seen by fake tensors
// and AOT; gradcheck passes (the backward is right).
Tensor function_at_cpu(const Tensor& x) { return SquareAtCpuFn::apply(x); }

// Its Meta kernel records nothing: the defect is the CPU kernel's alone.
Tensor square_meta_no_grad(const Tensor& x) {
  torch::NoGradGuard no_grad;
  return x * x;
}

// ---- Two outputs, (2x, x·x), through a Function that asks for undefined grad_outputs as they come
// (set_materialize_grads(false)): its backward must treat an undefined one as zero ("Notes about undefined
// output gradients", tools/autograd/derivatives.yaml).
std::tuple<Tensor, Tensor> pair_kernel(const Tensor& x) { return {x * 2, x * x}; }

std::tuple<Tensor, Tensor> call_pair(const char* op, const Tensor& x) {
  return c10::Dispatcher::singleton()
      .findSchemaOrThrow(op, "")
      .typed<std::tuple<Tensor, Tensor>(const Tensor&)>()
      .call(x);
}

template <bool TakesZerosFromAGrad>
struct PairFn : public torch::autograd::Function<PairFn<TakesZerosFromAGrad>> {
  static variable_list forward(AutogradContext* ctx, const Tensor& x, const char* op) {
    ctx->set_materialize_grads(false);
    ctx->save_for_backward({x});
    at::AutoDispatchBelowADInplaceOrView below;
    auto [a, b] = call_pair(op, x);
    return {a, b};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    Tensor x = ctx->get_saved_variables()[0];
    if constexpr (TakesZerosFromAGrad) {
      // the zeros standing for an undefined grad_output are made like the other grad_output: fine while one
      // is defined, an error when none is
      const Tensor& like = grads[0].defined() ? grads[0] : grads[1];
      Tensor g0 = grads[0].defined() ? grads[0] : torch::zeros_like(like);
      Tensor g1 = grads[1].defined() ? grads[1] : torch::zeros_like(like);
      return {g0 * 2 + g1 * 2 * x, Tensor()};
    } else {
      Tensor gx = torch::zeros_like(x);
      if (grads[0].defined()) gx = gx + grads[0] * 2;
      if (grads[1].defined()) gx = gx + grads[1] * 2 * x;
      return {gx, Tensor()};
    }
  }
};

// OP: classic_bad_ops::pair
// The good twin of pair_all_undefined: each undefined grad_output skipped. real 2.13.0: gradcheck (with
// check_undefined_grad, its default) passes.
std::tuple<Tensor, Tensor> pair(const Tensor& x) {
  auto out = PairFn<false>::apply(x, "classic_bad_ops::pair");
  return {out[0], out[1]};
}

// OP: classic_bad_ops::pair_all_undefined
// EXPECT: gradcheck.undefined-grad
// A backward that mishandles undefined grad_outputs: it makes the zeros for one from the other, so with every
// grad_output undefined at once (gradcheck's check_undefined_grad, first case) it raises; with one defined, as
// in every vector-Jacobian product gradcheck and gradcheck.jacobian take, it is right. real 2.13.0: gradcheck
// fails ("Expected backward function to handle undefined output grads"), and passes with
// check_undefined_grad=False.
std::tuple<Tensor, Tensor> pair_all_undefined(const Tensor& x) {
  auto out = PairFn<true>::apply(x, "classic_bad_ops::pair_all_undefined");
  return {out[0], out[1]};
}
}  // namespace

TORCH_LIBRARY(classic_bad_ops, m) {
  m.def("twice(Tensor x) -> Tensor");
  m.def("writes_input(Tensor x) -> Tensor");
  m.def("meta_flattens(Tensor x) -> Tensor");
  m.def("square(Tensor x) -> Tensor");
  m.def("square_wrong_grad(Tensor x) -> Tensor");
  m.def("function_at_cpu(Tensor x) -> Tensor");
  m.def("pair(Tensor x) -> (Tensor, Tensor)");
  m.def("pair_all_undefined(Tensor x) -> (Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(classic_bad_ops, CPU, m) {
  m.impl("twice", &twice_kernel);
  m.impl("writes_input", &writes_input);
  m.impl("meta_flattens", &twice_kernel);
  m.impl("square", &square_kernel);
  m.impl("square_wrong_grad", &square_kernel);
  m.impl("function_at_cpu", &function_at_cpu);
  m.impl("pair", &pair_kernel);
  m.impl("pair_all_undefined", &pair_kernel);
}

TORCH_LIBRARY_IMPL(classic_bad_ops, Meta, m) {
  m.impl("twice", &twice_kernel);
  m.impl("writes_input", &twice_kernel);
  m.impl("meta_flattens", &meta_flattens_meta);
  m.impl("square", &square_kernel);
  m.impl("square_wrong_grad", &square_kernel);
  m.impl("function_at_cpu", &square_meta_no_grad);
  m.impl("pair", &pair_kernel);
  m.impl("pair_all_undefined", &pair_kernel);
}

TORCH_LIBRARY_IMPL(classic_bad_ops, Autograd, m) {
  m.impl("square", &square);
  m.impl("square_wrong_grad", &square_wrong_grad);
  m.impl("pair", &pair);
  m.impl("pair_all_undefined", &pair_all_undefined);
}
