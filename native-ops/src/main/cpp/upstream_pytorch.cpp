// Real-code corpus (issue 17 §5): operators whose behaviour is modelled on PyTorch's own stable-ABI
// test extension.
//
// Behaviour modelled on github.com/pytorch/pytorch,
//   test/cpp_extensions/libtorch_agnostic_extension/libtorch_agnostic/csrc/kernel.cpp
//   @ 009b352ea83cfabeda241d4b35373420599923b7
// The code is ours. What is upstream's is the contract: the schema strings, the dispatch keys each op
// is registered at, the argument checks it makes and the ones it omits, and the arithmetic it does,
// because the corpus exists to see how opcheck4j and real opcheck judge upstream's real choices.
// Upstream registers no fake kernels and no autograd formulas for these ops in Python (its ops.py
// only wraps them), so what is registered below is the whole contract.
// Ops of that file left out: my_ones_like (a Device argument), exp_neg_is_leaf,
// test_default_constructor and my_new_*_dtype_variant (no tensor-valued contract worth checking, or
// non-stable headers), my_empty_like (uninitialised output: nothing to compare), and everything after
// my_amax_vec (foreach, accelerator and CUDA ops). Upstream also registers identity for CUDA; this
// corpus is CPU-only.
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/Exception.h>

#include <limits>
#include <string>

namespace {

using torch::stable::Tensor;
using torch::stable::detail::from;
using torch::stable::detail::to;

// Runs an aten op through the C shim on a stack whose slot 0 holds the argument and receives the
// result. The shim's status code is dropped on purpose: upstream's ops never read it, and an error it
// reports leaves the stack unchanged, which is one of the behaviours the corpus keeps.
void call_aten_in_place(const char* op, const char* overload, StableIValue* stack) {
  (void)aoti_torch_call_dispatcher(op, overload, stack);
}

// sgd_out_of_place (CPU): one plain SGD step, out = param - lr * (±grad + weight_decay * param), into
// a new tensor shaped like param. Kept as upstream has it: param must be 1-D and on CPU (both device
// getters are asserted) and its stride accessors must agree, but grad's shape, either tensor's dtype
// and both tensors' strides are never checked: the step walks raw float pointers over param.numel()
// elements. weight_decay and lr arrive as doubles (the schema's float) and the step is done in
// float, as upstream's is.
Tensor sgd_step_into_new(Tensor param, Tensor grad, double weight_decay_in, double lr, bool maximize) {
  STD_TORCH_CHECK(param.dim() == 1, "param must be 1D");
  const auto cpu_index_message = "CPU device index = -1";
  const auto device = param.get_device();
  STD_TORCH_CHECK(device == -1, cpu_index_message);
  const auto device_index = param.get_device_index();
  STD_TORCH_CHECK(device_index == -1, cpu_index_message);
  STD_TORCH_CHECK(param.stride(0) == param.strides()[0]);

  const float decay = static_cast<float>(weight_decay_in);
  const float step = static_cast<float>(lr);
  Tensor updated = new_empty(param, param.sizes());
  const float* p = static_cast<const float*>(param.data_ptr());
  const float* g = static_cast<const float*>(grad.data_ptr());
  float* u = static_cast<float*>(updated.data_ptr());
  const int64_t count = param.numel();
  for (int64_t k = 0; k < count; ++k) {
    float direction = maximize ? -g[k] : g[k];
    if (decay != 0.0) {
      direction += p[k] * decay;
    }
    u[k] = p[k] - direction * step;
  }
  return updated;
}

// identity (CPU): returns its argument itself, so the output aliases the input although the schema
// says nothing of it.
Tensor same_tensor(Tensor t) {
  return t;
}

// my_abs (CompositeExplicitAutograd): aten::abs through the C shim, status ignored.
Tensor shim_abs(Tensor t) {
  StableIValue slot[1] = {from(t)};
  call_aten_in_place("aten::abs", "", slot);
  return to<Tensor>(slot[0]);
}

// neg_exp (CompositeExplicitAutograd): -exp(t), both steps through the shim on one stack slot.
Tensor shim_neg_of_exp(Tensor t) {
  StableIValue slot[1] = {from(t)};
  call_aten_in_place("aten::exp", "", slot);
  call_aten_in_place("aten::neg", "", slot);
  return to<Tensor>(slot[0]);
}

// divide_neg_exp (CompositeExplicitAutograd): (-t) / exp(t), with aten::divide.Tensor, all through
// the shim; exp is taken before neg, as upstream does.
Tensor shim_neg_over_exp(Tensor t) {
  StableIValue exponent[1] = {from(t)};
  StableIValue negated[1] = {from(t)};
  call_aten_in_place("aten::exp", "", exponent);
  call_aten_in_place("aten::neg", "", negated);
  StableIValue quotient[2] = {negated[0], exponent[0]};
  call_aten_in_place("aten::divide", "Tensor", quotient);
  return to<Tensor>(quotient[0]);
}

// is_contiguous and my_is_cpu (CompositeExplicitAutograd): a bool read off the tensor. my_is_cpu is
// registered at its dispatch key before it is defined, as upstream orders it, and its answer differs
// between a real and a meta tensor.
bool reports_contiguous(Tensor t) {
  return t.is_contiguous();
}

bool reports_cpu(Tensor t) {
  return t.is_cpu();
}

// my_transpose (CompositeExplicitAutograd): a transposed view of t; the output aliases the input
// without an alias annotation.
Tensor swapped_dims(Tensor t, int64_t first, int64_t second) {
  return transpose(t, first, second);
}

// fill_infinity (CompositeExplicitAutograd, schema Tensor(a!) -> Tensor(a!)): fills t in place with
// float +infinity and returns it.
Tensor filled_with_infinity(Tensor t) {
  const float inf = std::numeric_limits<float>::infinity();
  return fill_(t, inf);
}

// my_pad (CompositeImplicitAutograd): constant zero padding of the last two dims, (1, 2) on the last
// and (2, 1) on the one before.
Tensor zero_padded(Tensor t) {
  const std::string constant_mode = "constant";
  return pad(t, {1, 2, 2, 1}, constant_mode, 0.0);
}

// my_narrow (CompositeImplicitAutograd): a narrowed view of t.
Tensor narrowed(Tensor t, int64_t dim, int64_t start, int64_t length) {
  return narrow(t, dim, start, length);
}

// my_copy_ (CompositeExplicitAutograd): copies src into dst and returns dst, while the schema
// declares neither dst's mutation nor the alias between dst and the output.
Tensor copied_into(Tensor dst, Tensor src, bool non_blocking) {
  return copy_(dst, src, non_blocking);
}

// my_clone (CompositeExplicitAutograd): a fresh copy of t.
Tensor cloned(Tensor t) {
  return clone(t);
}

// my_zero_ (CPU only, schema Tensor(a!) -> Tensor(a!)): zeroes t in place and returns it.
Tensor zeroed(Tensor t) {
  return zero_(t);
}

// my_amax and my_amax_vec (CompositeExplicitAutograd): the maximum over dim 0, and over dims 0 and 1,
// without keepdim.
Tensor max_over_first_dim(Tensor t) {
  return amax(t, 0, false);
}

Tensor max_over_first_two_dims(Tensor t) {
  return amax(t, {0, 1}, false);
}

} // namespace

// Registrations, in upstream's order (my_is_cpu's implementation comes before its definition).
STABLE_TORCH_LIBRARY(libtorch_agnostic, m) {
  m.def("sgd_out_of_place(Tensor param, Tensor grad, float weight_decay, float lr, bool maximize) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(libtorch_agnostic, CPU, m) {
  m.impl("sgd_out_of_place", TORCH_BOX(&sgd_step_into_new));
}

STABLE_TORCH_LIBRARY_FRAGMENT(libtorch_agnostic, m) {
  m.def("identity(Tensor t) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(libtorch_agnostic, CPU, m) {
  m.impl("identity", TORCH_BOX(&same_tensor));
}

STABLE_TORCH_LIBRARY_FRAGMENT(libtorch_agnostic, m) {
  m.def("my_abs(Tensor t) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(libtorch_agnostic, CompositeExplicitAutograd, m) {
  m.impl("my_abs", TORCH_BOX(&shim_abs));
}

STABLE_TORCH_LIBRARY_FRAGMENT(libtorch_agnostic, m) {
  m.def("neg_exp(Tensor t) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(libtorch_agnostic, CompositeExplicitAutograd, m) {
  m.impl("neg_exp", TORCH_BOX(&shim_neg_of_exp));
}

STABLE_TORCH_LIBRARY_FRAGMENT(libtorch_agnostic, m) {
  m.def("divide_neg_exp(Tensor t) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(libtorch_agnostic, CompositeExplicitAutograd, m) {
  m.impl("divide_neg_exp", TORCH_BOX(&shim_neg_over_exp));
}

STABLE_TORCH_LIBRARY_FRAGMENT(libtorch_agnostic, m) {
  m.def("is_contiguous(Tensor t) -> bool");
}

STABLE_TORCH_LIBRARY_IMPL(libtorch_agnostic, CompositeExplicitAutograd, m) {
  m.impl("is_contiguous", TORCH_BOX(&reports_contiguous));
}

STABLE_TORCH_LIBRARY_FRAGMENT(libtorch_agnostic, m) {
  m.def("my_transpose(Tensor t, int dim0, int dim1) -> Tensor");
  m.def("fill_infinity(Tensor(a!) t) -> Tensor(a!)");
  m.def("my_pad(Tensor t) -> Tensor");
  m.def("my_narrow(Tensor t, int dim, int start, int length) -> Tensor");
  m.def("my_copy_(Tensor dst, Tensor src, bool non_blocking) -> Tensor");
  m.def("my_clone(Tensor t) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(libtorch_agnostic, CompositeExplicitAutograd, m) {
  m.impl("my_transpose", TORCH_BOX(&swapped_dims));
  m.impl("fill_infinity", TORCH_BOX(&filled_with_infinity));
  m.impl("my_is_cpu", TORCH_BOX(&reports_cpu));
  m.impl("my_copy_", TORCH_BOX(&copied_into));
  m.impl("my_clone", TORCH_BOX(&cloned));
}

STABLE_TORCH_LIBRARY_IMPL(libtorch_agnostic, CompositeImplicitAutograd, m) {
  m.impl("my_pad", TORCH_BOX(&zero_padded));
  m.impl("my_narrow", TORCH_BOX(&narrowed));
}

STABLE_TORCH_LIBRARY_FRAGMENT(libtorch_agnostic, m) {
  m.def("my_zero_(Tensor(a!) t) -> Tensor(a!)");
  m.def("my_amax(Tensor a) -> Tensor");
  m.def("my_amax_vec(Tensor a) -> Tensor");
  m.def("my_is_cpu(Tensor t) -> bool");
}

STABLE_TORCH_LIBRARY_IMPL(libtorch_agnostic, CPU, m) {
  m.impl("my_zero_", TORCH_BOX(&zeroed));
}

STABLE_TORCH_LIBRARY_IMPL(libtorch_agnostic, CompositeExplicitAutograd, m) {
  m.impl("my_amax", TORCH_BOX(&max_over_first_dim));
  m.impl("my_amax_vec", TORCH_BOX(&max_over_first_two_dims));
}
