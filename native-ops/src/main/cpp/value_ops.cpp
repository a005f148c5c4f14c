// Ops whose contracts are all kept but whose values may be wrong: only a reference (the spec's
// "reference" expression) can tell. Each bad op has one defect, marked with the check it must trip.
#include "kernels.h"

#include <cmath>

using namespace opcheck4j;

namespace {

// OP: value_ops::sine
// EXPECT: reference.values
// Computes cos where its name (and the spec's reference, torch.sin(x)) says sin. Built from aten ops,
// so its meta kernel and its backward are those of cos: consistent with its own forward.
Tensor sine(Tensor x) { return unary("aten::cos", x); }

// OP: value_ops::rippled_sine
// EXPECT: reference.grad
// sin(x) plus a ripple 1e-6 * sin(1e4 * x): every value is within the spec's tolerance (1e-5) of
// torch.sin(x), but the derivative the aten composite gives, cos(x) + 1e-2 * cos(1e4 * x), is up to
// 1e-2 off the reference's cos(x). Its backward is exactly its own forward's derivative, so gradcheck
// passes it; only the reference's gradient tells.
Tensor rippled_sine(Tensor x) {
  check_floating(x, "rippled_sine: x");
  Tensor ripple = unary("aten::sin", mul(x, scalar_like(x, 1e4)));
  return add(unary("aten::sin", x), mul(ripple, scalar_like(x, 1e-6)));
}

// scaled_sine(x, alpha) = sin(x) * alpha, from aten ops: the known-good twin of sine.
// alpha is made a tensor of sin(x)'s dtype, not x's: in an integer or bool x's dtype 1.5 would be 1.
Tensor scaled_sine(Tensor x, double alpha) {
  Tensor s = unary("aten::sin", x);
  return mul(s, scalar_like(s, alpha));
}

// sin_(x!) writes sin(x) into x and returns nothing: the reference gives x's new value.
void sin_inplace(Tensor x) {
  check_floating(x, "sin_: x");
  Tensor xc = torch::stable::contiguous(x);
  Tensor result = map_new(xc, [&](int64_t i) { return std::sin(elem(xc, i)); });
  torch::stable::copy_(x, result);
}
void sin_inplace_meta(Tensor x) { check_floating(x, "sin_: x"); }

// min_max: the shared CPU kernel of kernels.h (two outputs); its Meta kernel:
std::tuple<Tensor, Tensor> min_max_meta(Tensor x) {
  check_floating(x, "min_max: x");
  return {torch::stable::new_empty(x, x.sizes()), torch::stable::new_empty(x, x.sizes())};
}

}  // namespace

STABLE_TORCH_LIBRARY(value_ops, m) {
  m.def("sine(Tensor x) -> Tensor");
  m.def("scaled_sine(Tensor x, float alpha) -> Tensor");
  m.def("sin_(Tensor(a!) x) -> ()");
  m.def("min_max(Tensor x) -> (Tensor, Tensor)");
  m.def("rippled_sine(Tensor x) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(value_ops, CPU, m) {
  m.impl("sin_", TORCH_BOX(&sin_inplace));
  m.impl("min_max", TORCH_BOX(&min_max));
}

STABLE_TORCH_LIBRARY_IMPL(value_ops, Meta, m) {
  m.impl("sin_", TORCH_BOX(&sin_inplace_meta));
  m.impl("min_max", TORCH_BOX(&min_max_meta));
}

STABLE_TORCH_LIBRARY_IMPL(value_ops, CompositeImplicitAutograd, m) {
  m.impl("sine", TORCH_BOX(&sine));
  m.impl("scaled_sine", TORCH_BOX(&scaled_sine));
  m.impl("rippled_sine", TORCH_BOX(&rippled_sine));
}
