// Known-good operators: every check must pass on every one of them, on every available device.
// They cover a mutable op declared correctly, a multi-output op, a Tensor[] input, a composite op
// with working autograd, and zero-size tensors (through the specs in fixtures/).
#include "kernels.h"

#include <cmath>

using namespace opcheck4j;

namespace {

Tensor elementwise_meta(Tensor x) { return torch::stable::new_empty(x, x.sizes()); }

// add_scalar(x, s) = x + s, zero-size inputs included.
Tensor add_scalar(Tensor x, double s) {
  check_floating(x, "add_scalar: x");
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i) + s; });
}
Tensor add_scalar_meta(Tensor x, double s) {
  check_floating(x, "add_scalar: x");
  return elementwise_meta(x);
}

// sin_into(x, *, out!) writes sin(x) into out, whatever out's layout; declared (a!), returns nothing.
void sin_into(Tensor x, Tensor out) {
  check_floating(x, "sin_into: x");
  STD_TORCH_CHECK(sizes_of(x) == sizes_of(out), "sin_into: out must have x's shape");
  Tensor xc = torch::stable::contiguous(x);
  Tensor result = map_new(xc, [&](int64_t i) { return std::sin(elem(xc, i)); });
  torch::stable::copy_(out, result);
}
void sin_into_meta(Tensor x, Tensor out) {
  check_floating(x, "sin_into: x");
  STD_TORCH_CHECK(sizes_of(x) == sizes_of(out), "sin_into: out must have x's shape");
}

// min_max: the shared CPU kernel of kernels.h (two outputs); its Meta kernel:
std::tuple<Tensor, Tensor> min_max_meta(Tensor x) {
  check_floating(x, "min_max: x");
  return {elementwise_meta(x), elementwise_meta(x)};
}

// sum_list(xs) = elementwise sum of same-shaped tensors.
Tensor sum_list(std::vector<Tensor> xs) {
  STD_TORCH_CHECK(!xs.empty(), "sum_list: xs must not be empty");
  std::vector<Tensor> cs;
  for (auto& x : xs) {
    check_floating(x, "sum_list: xs[i]");
    STD_TORCH_CHECK(sizes_of(x) == sizes_of(xs[0]) && x.scalar_type() == xs[0].scalar_type(),
                    "sum_list: all tensors must have the same shape and dtype");
    cs.push_back(torch::stable::contiguous(x));
  }
  return map_new(cs[0], [&](int64_t i) {
    double s = 0;
    for (auto& c : cs) s += elem(c, i);
    return s;
  });
}
Tensor sum_list_meta(std::vector<Tensor> xs) {
  STD_TORCH_CHECK(!xs.empty(), "sum_list: xs must not be empty");
  for (auto& x : xs) {
    check_floating(x, "sum_list: xs[i]");
    STD_TORCH_CHECK(sizes_of(x) == sizes_of(xs[0]) && x.scalar_type() == xs[0].scalar_type(),
                    "sum_list: all tensors must have the same shape and dtype");
  }
  return elementwise_meta(xs[0]);
}

// scaled_square(x, s) = s * x * x, built from aten ops: autograd and meta come from the decomposition.
Tensor scaled_square(Tensor x, double s) { return mul(mul(x, x), scalar_like(x, s)); }

// rowwise_dot(a, b) = sum over the last dim of a*b, composite: a reduction with a different output shape.
Tensor rowwise_dot(Tensor a, Tensor b) {
  int64_t last = a.dim() - 1;
  return torch::stable::sum(mul(a, b), std::vector<int64_t>{last});
}

}  // namespace

STABLE_TORCH_LIBRARY(good_ops, m) {
  m.def("add_scalar(Tensor x, float s) -> Tensor");
  m.def("sin_into(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("min_max(Tensor x) -> (Tensor, Tensor)");
  m.def("sum_list(Tensor[] xs) -> Tensor");
  m.def("scaled_square(Tensor x, float s) -> Tensor");
  m.def("rowwise_dot(Tensor a, Tensor b) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(good_ops, CPU, m) {
  m.impl("add_scalar", TORCH_BOX(&add_scalar));
  m.impl("sin_into", TORCH_BOX(&sin_into));
  m.impl("min_max", TORCH_BOX(&min_max));
  m.impl("sum_list", TORCH_BOX(&sum_list));
}

STABLE_TORCH_LIBRARY_IMPL(good_ops, Meta, m) {
  m.impl("add_scalar", TORCH_BOX(&add_scalar_meta));
  m.impl("sin_into", TORCH_BOX(&sin_into_meta));
  m.impl("min_max", TORCH_BOX(&min_max_meta));
  m.impl("sum_list", TORCH_BOX(&sum_list_meta));
}

STABLE_TORCH_LIBRARY_IMPL(good_ops, CompositeImplicitAutograd, m) {
  m.impl("scaled_square", TORCH_BOX(&scaled_square));
  m.impl("rowwise_dot", TORCH_BOX(&rowwise_dot));
}
