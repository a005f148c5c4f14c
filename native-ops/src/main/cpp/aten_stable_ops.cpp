// Correct stable-ABI ops that compose aten ops through the dispatcher (torch_call_dispatcher), one aten CPU
// kernel family each, with CPU and Meta kernels (issue 52): the stable-ABI twins of aten_ops.cpp. The stable
// ABI has no guard that turns autograd off, so a CPU kernel calls the aten ops on detached inputs (aten::detach)
// and records no autograd history: the ops declare themselves non-differentiable. The Meta kernel is the same
// function where libtorch's C++ has Meta kernels for its aten ops, else the output's sizes, computed. memory.bounds runs them with the guarded allocator as the CPU allocator,
// so every allocation the aten kernels make for them goes through it (raw ones too). Every check must pass on
// each, memory.bounds with the allocations it guarded named.
// EXPECT: every check passes (no op has a defect)
#include "kernels.h"

#include <array>
#include <string>

using namespace opcheck4j;

namespace {

using torch::stable::detail::from;
using torch::stable::detail::to;

// Calls aten::NAME.OVERLOAD with `stack` (arguments in, returns out).
template <size_t N>
std::array<StableIValue, N> aten(const char* name, const char* overload, std::array<StableIValue, N> stack) {
  STABLE_TORCH_ERROR_CODE_CHECK(torch_call_dispatcher(name, overload, stack.data(), TORCH_ABI_VERSION));
  return stack;
}

// `x` without its autograd history: what a backend kernel computes on.
Tensor detached(const Tensor& x) {
  return to<Tensor>(aten<1>("aten::detach", "", {from(x)})[0]);
}

void check_float(const Tensor& x, const char* name) {
  STD_TORCH_CHECK(is_floating(x), name, " must be float32 or float64");
}

// OP: aten_stable_ops::gelu_sub
Tensor gelu_sub(Tensor x, Tensor b) {
  check_float(x, "gelu_sub: x");
  Tensor d = torch::stable::subtract(detached(x), detached(b));
  return to<Tensor>(aten<2>("aten::gelu", "", {from(d), from(std::string("none"))})[0]);
}

// OP: aten_stable_ops::softmax_last
Tensor softmax_last(Tensor x) {
  check_float(x, "softmax_last: x");
  return to<Tensor>(aten<3>("aten::_softmax", "", {from(detached(x)), from(int64_t{-1}), from(false)})[0]);
}

// OP: aten_stable_ops::layer_norm_last
Tensor layer_norm_last(Tensor x) {
  check_float(x, "layer_norm_last: x");
  STD_TORCH_CHECK(x.dim() >= 1, "layer_norm_last: x must have a dimension");
  std::vector<int64_t> last{x.size(-1)};
  return to<Tensor>(aten<6>("aten::layer_norm", "", {from(detached(x)), from(torch::headeronly::IntHeaderOnlyArrayRef(last)),
      from(std::nullopt), from(std::nullopt), from(1e-5), from(true)})[0]);
}

// OP: aten_stable_ops::sort_last
std::tuple<Tensor, Tensor> sort_last(Tensor x) {
  auto out = aten<3>("aten::sort", "", {from(detached(x)), from(int64_t{-1}), from(false)});
  return {to<Tensor>(out[0]), to<Tensor>(out[1])};
}

// OP: aten_stable_ops::matmul
Tensor matmul(Tensor a, Tensor b) {
  return torch::stable::matmul(detached(a), detached(b));
}

// A 3x3 convolution that keeps the size (padding 1) of a non-empty x, by non-empty weights.
void check_conv(const Tensor& x, const Tensor& w) {
  check_float(x, "conv2d_same: x");
  STD_TORCH_CHECK(x.dim() == 4 && w.dim() == 4, "conv2d_same: x and w must be 4-d");
  STD_TORCH_CHECK(w.size(2) == 3 && w.size(3) == 3, "conv2d_same: w must be (C_out, C_in, 3, 3)");
  STD_TORCH_CHECK(w.size(1) == x.size(1), "conv2d_same: w's input channels must be x's");
  bool empty = false;  // numel() raises on a meta tensor with symbolic sizes, sizes() does not
  for (int64_t d : x.sizes()) empty = empty || d == 0;
  for (int64_t d : w.sizes()) empty = empty || d == 0;
  STD_TORCH_CHECK(!empty, "conv2d_same: x and w must have elements");
}

// OP: aten_stable_ops::conv2d_same
Tensor conv2d_same(Tensor x, Tensor w) {
  check_conv(x, w);
  std::vector<int64_t> one{1};  // stride, padding (a 3x3 kernel keeps the size) and dilation
  Tensor y = to<Tensor>(aten<7>("aten::conv2d", "", {from(detached(x)), from(detached(w)), from(std::nullopt),
      from(torch::headeronly::IntHeaderOnlyArrayRef(one)), from(torch::headeronly::IntHeaderOnlyArrayRef(one)),
      from(torch::headeronly::IntHeaderOnlyArrayRef(one)), from(int64_t{1})})[0]);
  return torch::stable::contiguous(y);  // aten's follows a channels-last x or w; this op's is contiguous
}

// Meta kernels where libtorch's C++ has none for the aten ops the CPU kernel calls (PyTorch's come from Python)
Tensor layer_norm_last_meta(Tensor x) {
  check_float(x, "layer_norm_last: x");
  STD_TORCH_CHECK(x.dim() >= 1, "layer_norm_last: x must have a dimension");
  return torch::stable::new_empty(x, x.sizes());  // contiguous, as the CPU kernel's
}

Tensor conv2d_same_meta(Tensor x, Tensor w) {
  check_conv(x, w);
  return torch::stable::new_empty(x, {x.size(0), w.size(0), x.size(2), x.size(3)});
}

}  // namespace

STABLE_TORCH_LIBRARY(aten_stable_ops, m) {
  m.def("gelu_sub(Tensor x, Tensor b) -> Tensor");
  m.def("softmax_last(Tensor x) -> Tensor");
  m.def("layer_norm_last(Tensor x) -> Tensor");
  m.def("sort_last(Tensor x) -> (Tensor, Tensor)");
  m.def("matmul(Tensor a, Tensor b) -> Tensor");
  m.def("conv2d_same(Tensor x, Tensor w) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(aten_stable_ops, CPU, m) {
  m.impl("gelu_sub", TORCH_BOX(&gelu_sub));
  m.impl("softmax_last", TORCH_BOX(&softmax_last));
  m.impl("layer_norm_last", TORCH_BOX(&layer_norm_last));
  m.impl("sort_last", TORCH_BOX(&sort_last));
  m.impl("matmul", TORCH_BOX(&matmul));
  m.impl("conv2d_same", TORCH_BOX(&conv2d_same));
}

STABLE_TORCH_LIBRARY_IMPL(aten_stable_ops, Meta, m) {
  m.impl("gelu_sub", TORCH_BOX(&gelu_sub));
  m.impl("softmax_last", TORCH_BOX(&softmax_last));
  m.impl("layer_norm_last", TORCH_BOX(&layer_norm_last_meta));
  m.impl("sort_last", TORCH_BOX(&sort_last));
  m.impl("matmul", TORCH_BOX(&matmul));
  m.impl("conv2d_same", TORCH_BOX(&conv2d_same_meta));
}
