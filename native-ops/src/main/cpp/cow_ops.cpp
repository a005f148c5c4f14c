// Copy-on-write inputs (issue 43): kernels that read an input the schema declares read-only through a
// writable pointer, which materializes a lazily cloned input (torch._lazy_clone: the input is copied
// before the kernel runs, a copy per call), each marked with the checks that must trip (`// OP:` /
// `// EXPECT:`), and good twins that read through const_data_ptr(). Classic TORCH_LIBRARY code (built with
// the runtime's exact headers): the backward that materializes a saved input is a torch::autograd::Function.
// Real PyTorch 2.13.0 running test_cow_input's steps by hand agrees with each marker
// (fixtures/specs/memory/cow_ops.md).
#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include <cmath>

namespace {

void check_input(const at::Tensor& x, const char* name) {
  TORCH_CHECK(x.scalar_type() == at::kFloat || x.scalar_type() == at::kDouble, name, " must be float32 or float64, got ",
      x.scalar_type());
}

// ---- Reading through a writable pointer. scale(x, s) = x * s.

// OP: cow_ops::scale
at::Tensor scale(const at::Tensor& x, double s) {
  check_input(x, "scale: x");
  at::Tensor xc = x.contiguous();
  at::Tensor out = at::empty(xc.sizes(), xc.options());
  AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "scale", [&] {
    const scalar_t* in = xc.const_data_ptr<scalar_t>();
    scalar_t* o = out.mutable_data_ptr<scalar_t>();
    for (int64_t i = 0; i < xc.numel(); ++i) o[i] = in[i] * static_cast<scalar_t>(s);
  });
  return out;
}

// Reads x through mutable_data_ptr(), never writing it: every value is right, and a lazily cloned x is
// copied before the loop (materialized) although nothing is written.
// OP: cow_ops::scale_mutable_ptr
// EXPECT: memory.cow-input
at::Tensor scale_mutable_ptr(const at::Tensor& x, double s) {
  check_input(x, "scale_mutable_ptr: x");
  at::Tensor xc = x.contiguous();
  at::Tensor out = at::empty(xc.sizes(), xc.options());
  AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "scale_mutable_ptr", [&] {
    scalar_t* in = xc.mutable_data_ptr<scalar_t>();
    scalar_t* o = out.mutable_data_ptr<scalar_t>();
    for (int64_t i = 0; i < xc.numel(); ++i) o[i] = in[i] * static_cast<scalar_t>(s);
  });
  return out;
}

at::Tensor same_shape_meta(const at::Tensor& x) { return at::empty(x.sizes(), x.options()); }
at::Tensor scale_meta(const at::Tensor& x, double) { return same_shape_meta(x); }

// ---- Writing an input and restoring it. negative_sum(x) = -(x[0] + ... + x[n-1]), a 0-d tensor.

at::Tensor negative_sum_meta(const at::Tensor& x) { return at::empty({}, x.options()); }

// OP: cow_ops::negative_sum
at::Tensor negative_sum(const at::Tensor& x) {
  check_input(x, "negative_sum: x");
  at::Tensor xc = x.contiguous();
  at::Tensor out = at::empty({}, xc.options());
  AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "negative_sum", [&] {
    const scalar_t* in = xc.const_data_ptr<scalar_t>();
    scalar_t acc = 0;
    for (int64_t i = 0; i < xc.numel(); ++i) acc += -in[i];
    *out.mutable_data_ptr<scalar_t>() = acc;
  });
  return out;
}

// Negates x in place (a contiguous x; a copy of any other), sums it, and negates it back (exactly: a sign
// flip twice), so x holds its values again when the kernel returns: a write to an input the schema leaves
// immutable, which also materializes a lazily cloned x.
// OP: cow_ops::negative_sum_in_place
// EXPECT: memory.cow-input, memory.readonly-input
at::Tensor negative_sum_in_place(const at::Tensor& x) {
  check_input(x, "negative_sum_in_place: x");
  at::Tensor xc = x.contiguous();
  at::Tensor out = at::empty({}, xc.options());
  AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "negative_sum_in_place", [&] {
    scalar_t* in = xc.mutable_data_ptr<scalar_t>();
    for (int64_t i = 0; i < xc.numel(); ++i) in[i] = -in[i];
    scalar_t acc = 0;
    for (int64_t i = 0; i < xc.numel(); ++i) acc += in[i];
    for (int64_t i = 0; i < xc.numel(); ++i) in[i] = -in[i];
    *out.mutable_data_ptr<scalar_t>() = acc;
  });
  return out;
}

// ---- A backward that materializes a saved input. square(x) = x * x; its gradient 2 * x * grad.

at::Tensor square_cpu(const at::Tensor& x) {
  check_input(x, "square: x");
  at::Tensor xc = x.contiguous();
  at::Tensor out = at::empty(xc.sizes(), xc.options());
  AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "square", [&] {
    const scalar_t* in = xc.const_data_ptr<scalar_t>();
    scalar_t* o = out.mutable_data_ptr<scalar_t>();
    for (int64_t i = 0; i < xc.numel(); ++i) o[i] = in[i] * in[i];
  });
  return out;
}

// 2 * x * grad: aten calls, differentiable (a second derivative, meta) where a graph of the backward is
// built or x is not a cpu tensor; else a loop over the saved x, read through a const pointer or, with
// Mutable, a writable one.
template <bool Mutable>
at::Tensor square_backward(const at::Tensor& x, const at::Tensor& grad) {
  if (at::GradMode::is_enabled() || !x.is_cpu()) {
    return grad * 2 * x;
  }
  at::Tensor xc = x.contiguous();
  at::Tensor g = grad.contiguous().to(xc.scalar_type());
  at::Tensor out = at::empty(xc.sizes(), xc.options());
  AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "square_backward", [&] {
    const scalar_t* in = Mutable ? xc.mutable_data_ptr<scalar_t>() : xc.const_data_ptr<scalar_t>();
    const scalar_t* gp = g.const_data_ptr<scalar_t>();
    scalar_t* o = out.mutable_data_ptr<scalar_t>();
    for (int64_t i = 0; i < xc.numel(); ++i) o[i] = 2 * in[i] * gp[i];
  });
  return out;
}

// The op's kernels below autograd (CPU or Meta), by name.
at::Tensor redispatch(const char* name, const at::Tensor& x) {
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<at::Tensor(const at::Tensor&)>();
  at::AutoDispatchBelowADInplaceOrView below;
  return op.call(x);
}

template <bool Mutable>
struct Square : torch::autograd::Function<Square<Mutable>> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x) {
    ctx->save_for_backward({x});
    return redispatch(Mutable ? "cow_ops::square_saved_mutable" : "cow_ops::square", x);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
      torch::autograd::variable_list grads) {
    at::Tensor x = ctx->get_saved_variables()[0];
    return {square_backward<Mutable>(x, grads[0])};
  }
};

// OP: cow_ops::square
at::Tensor square_autograd(const at::Tensor& x) { return Square<false>::apply(x); }

// The backward reads the saved x through mutable_data_ptr(): the forward leaves a lazily cloned x lazy,
// the backward materializes it.
// OP: cow_ops::square_saved_mutable
// EXPECT: memory.cow-input
at::Tensor square_saved_mutable_autograd(const at::Tensor& x) { return Square<true>::apply(x); }

}  // namespace

TORCH_LIBRARY(cow_ops, m) {
  m.def("scale(Tensor x, float s) -> Tensor");
  m.def("scale_mutable_ptr(Tensor x, float s) -> Tensor");
  m.def("negative_sum(Tensor x) -> Tensor");
  m.def("negative_sum_in_place(Tensor x) -> Tensor");
  m.def("square(Tensor x) -> Tensor");
  m.def("square_saved_mutable(Tensor x) -> Tensor");
}

TORCH_LIBRARY_IMPL(cow_ops, CPU, m) {
  m.impl("scale", &scale);
  m.impl("scale_mutable_ptr", &scale_mutable_ptr);
  m.impl("negative_sum", &negative_sum);
  m.impl("negative_sum_in_place", &negative_sum_in_place);
  m.impl("square", &square_cpu);
  m.impl("square_saved_mutable", &square_cpu);
}

TORCH_LIBRARY_IMPL(cow_ops, Meta, m) {
  m.impl("scale", &scale_meta);
  m.impl("scale_mutable_ptr", &scale_meta);
  m.impl("negative_sum", &negative_sum_meta);
  m.impl("negative_sum_in_place", &negative_sum_meta);
  m.impl("square", &same_shape_meta);
  m.impl("square_saved_mutable", &same_shape_meta);
}

TORCH_LIBRARY_IMPL(cow_ops, Autograd, m) {
  m.impl("square", &square_autograd);
  m.impl("square_saved_mutable", &square_saved_mutable_autograd);
}
