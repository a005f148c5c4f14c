// Correct classic ops (TORCH_LIBRARY, built with the runtime's own 2.13 headers) that compose aten ops, one
// aten CPU kernel family each, with CPU and Meta kernels (issue 52). A CPU kernel calls the aten ops below
// autograd (at::AutoDispatchBelowADInplaceOrView, as a forward under a torch::autograd::Function does), so it
// records no autograd history: the ops declare themselves non-differentiable. The Meta kernel is the same
// function where libtorch's C++ has Meta kernels for its aten ops, else the output's sizes, computed.
// memory.bounds runs them with the guarded allocator as the CPU allocator, so every allocation aten makes for
// them goes through it: its outputs and temporaries, and the raw allocations of its kernels (raw_allocate and
// raw_deallocate, gelu's among them), which an allocator without a raw deleter killed the worker on. Every
// check must pass on each, memory.bounds with the allocations it guarded named.
// EXPECT: every check passes (no op has a defect)
#include <torch/library.h>
#include <ATen/ATen.h>

#include <tuple>

namespace {

// The aten calls of a CPU kernel run below autograd: a backend kernel records no autograd history.
#define BELOW_AUTOGRAD at::AutoDispatchBelowADInplaceOrView below_autograd

void check_floating(const at::Tensor& x, const char* name) {
  TORCH_CHECK(x.is_floating_point(), name, " must be a floating-point tensor, got ", x.scalar_type());
}

// OP: aten_ops::gelu_add
at::Tensor gelu_add(const at::Tensor& x, const at::Tensor& b) {
  BELOW_AUTOGRAD;
  check_floating(x, "gelu_add: x");
  return at::gelu(x + b);
}

// OP: aten_ops::softmax_last
at::Tensor softmax_last(const at::Tensor& x) {
  BELOW_AUTOGRAD;
  check_floating(x, "softmax_last: x");
  return at::softmax(x, -1);
}

// OP: aten_ops::log_softmax_last
at::Tensor log_softmax_last(const at::Tensor& x) {
  BELOW_AUTOGRAD;
  check_floating(x, "log_softmax_last: x");
  return at::log_softmax(x, -1);
}

// OP: aten_ops::layer_norm_last
at::Tensor layer_norm_last(const at::Tensor& x) {
  BELOW_AUTOGRAD;
  check_floating(x, "layer_norm_last: x");
  TORCH_CHECK(x.dim() >= 1, "layer_norm_last: x must have a dimension");
  return at::layer_norm_symint(x, {x.sym_size(-1)});
}

// OP: aten_ops::group_norm_2
at::Tensor group_norm_2(const at::Tensor& x) {
  BELOW_AUTOGRAD;
  check_floating(x, "group_norm_2: x");
  return at::group_norm(x, 2);
}

// OP: aten_ops::sort_last
std::tuple<at::Tensor, at::Tensor> sort_last(const at::Tensor& x) {
  BELOW_AUTOGRAD;
  return at::sort(x, -1);
}

// OP: aten_ops::cumsum_last
at::Tensor cumsum_last(const at::Tensor& x) {
  BELOW_AUTOGRAD;
  check_floating(x, "cumsum_last: x");
  return at::cumsum(x, -1);
}

// OP: aten_ops::matmul
at::Tensor matmul(const at::Tensor& a, const at::Tensor& b) {
  BELOW_AUTOGRAD;
  return at::matmul(a, b);
}

// OP: aten_ops::bmm
at::Tensor bmm(const at::Tensor& a, const at::Tensor& b) {
  BELOW_AUTOGRAD;
  return at::bmm(a, b);
}

// A 3x3 convolution that keeps the size (padding 1) of a non-empty x, by non-empty weights.
void check_conv(const at::Tensor& x, const at::Tensor& w) {
  check_floating(x, "conv2d_same: x");
  TORCH_CHECK(x.dim() == 4 && w.dim() == 4, "conv2d_same: x and w must be 4-d");
  TORCH_CHECK(w.sym_size(2) == 3 && w.sym_size(3) == 3, "conv2d_same: w must be (C_out, C_in, 3, 3)");
  TORCH_CHECK(w.sym_size(1) == x.sym_size(1), "conv2d_same: w's input channels must be x's");
  TORCH_CHECK(x.sym_numel() > 0 && w.sym_numel() > 0, "conv2d_same: x and w must have elements");
}

// OP: aten_ops::conv2d_same
at::Tensor conv2d_same(const at::Tensor& x, const at::Tensor& w) {
  BELOW_AUTOGRAD;
  check_conv(x, w);
  return at::conv2d(x, w, {}, 1, 1).contiguous();  // aten's follows a channels-last x or w; this op's is contiguous
}

// OP: aten_ops::max_pool_2x2
at::Tensor max_pool_2x2(const at::Tensor& x) {
  BELOW_AUTOGRAD;
  check_floating(x, "max_pool_2x2: x");
  return at::max_pool2d(x, {2, 2});
}

// OP: aten_ops::std_mean_last
std::tuple<at::Tensor, at::Tensor> std_mean_last(const at::Tensor& x) {
  BELOW_AUTOGRAD;
  check_floating(x, "std_mean_last: x");
  return at::std_mean(x, {-1});
}

// OP: aten_ops::cdist
at::Tensor cdist(const at::Tensor& a, const at::Tensor& b) {
  BELOW_AUTOGRAD;
  check_floating(a, "cdist: a");
  return at::cdist(a, b);
}

// OP: aten_ops::einsum_bmm
at::Tensor einsum_bmm(const at::Tensor& a, const at::Tensor& b) {
  BELOW_AUTOGRAD;
  return at::einsum("bij,bjk->bik", {a, b});
}

// Meta kernels where libtorch's C++ has none for the aten ops the CPU kernel calls (PyTorch's come from Python)
at::Tensor layer_norm_last_meta(const at::Tensor& x) {
  check_floating(x, "layer_norm_last: x");
  TORCH_CHECK(x.dim() >= 1, "layer_norm_last: x must have a dimension");
  return at::empty_symint(x.sym_sizes(), x.options());  // contiguous, as the CPU kernel's
}

at::Tensor group_norm_2_meta(const at::Tensor& x) {
  check_floating(x, "group_norm_2: x");
  TORCH_CHECK(x.dim() >= 2 && x.sym_size(1) % 2 == 0, "group_norm_2: x must be (N, C, ...) with an even C");
  return at::empty_symint(x.sym_sizes(), x.options());  // contiguous, as the CPU kernel's
}

at::Tensor conv2d_same_meta(const at::Tensor& x, const at::Tensor& w) {
  check_conv(x, w);
  return at::empty_symint({x.sym_size(0), w.sym_size(0), x.sym_size(2), x.sym_size(3)}, x.options());
}

std::tuple<at::Tensor, at::Tensor> std_mean_last_meta(const at::Tensor& x) {
  check_floating(x, "std_mean_last: x");
  TORCH_CHECK(x.dim() >= 1, "std_mean_last: x must have a dimension");
  auto sizes = x.sym_sizes().vec();
  sizes.pop_back();
  return {at::empty_symint(sizes, x.options()), at::empty_symint(sizes, x.options())};
}

at::Tensor cdist_meta(const at::Tensor& a, const at::Tensor& b) {
  check_floating(a, "cdist: a");
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && a.sym_size(1) == b.sym_size(1), "cdist: a and b must be (P, M) and (R, M)");
  return at::empty_symint({a.sym_size(0), b.sym_size(0)}, a.options());
}

}  // namespace

TORCH_LIBRARY(aten_ops, m) {
  m.def("gelu_add(Tensor x, Tensor b) -> Tensor");
  m.def("softmax_last(Tensor x) -> Tensor");
  m.def("log_softmax_last(Tensor x) -> Tensor");
  m.def("layer_norm_last(Tensor x) -> Tensor");
  m.def("group_norm_2(Tensor x) -> Tensor");
  m.def("sort_last(Tensor x) -> (Tensor, Tensor)");
  m.def("cumsum_last(Tensor x) -> Tensor");
  m.def("matmul(Tensor a, Tensor b) -> Tensor");
  m.def("bmm(Tensor a, Tensor b) -> Tensor");
  m.def("conv2d_same(Tensor x, Tensor w) -> Tensor");
  m.def("max_pool_2x2(Tensor x) -> Tensor");
  m.def("std_mean_last(Tensor x) -> (Tensor, Tensor)");
  m.def("cdist(Tensor a, Tensor b) -> Tensor");
  m.def("einsum_bmm(Tensor a, Tensor b) -> Tensor");
}

TORCH_LIBRARY_IMPL(aten_ops, CPU, m) {
  m.impl("gelu_add", &gelu_add);
  m.impl("softmax_last", &softmax_last);
  m.impl("log_softmax_last", &log_softmax_last);
  m.impl("layer_norm_last", &layer_norm_last);
  m.impl("group_norm_2", &group_norm_2);
  m.impl("sort_last", &sort_last);
  m.impl("cumsum_last", &cumsum_last);
  m.impl("matmul", &matmul);
  m.impl("bmm", &bmm);
  m.impl("conv2d_same", &conv2d_same);
  m.impl("max_pool_2x2", &max_pool_2x2);
  m.impl("std_mean_last", &std_mean_last);
  m.impl("cdist", &cdist);
  m.impl("einsum_bmm", &einsum_bmm);
}

TORCH_LIBRARY_IMPL(aten_ops, Meta, m) {
  m.impl("gelu_add", &gelu_add);
  m.impl("softmax_last", &softmax_last);
  m.impl("log_softmax_last", &log_softmax_last);
  m.impl("layer_norm_last", &layer_norm_last_meta);
  m.impl("group_norm_2", &group_norm_2_meta);
  m.impl("sort_last", &sort_last);
  m.impl("cumsum_last", &cumsum_last);
  m.impl("matmul", &matmul);
  m.impl("bmm", &bmm);
  m.impl("conv2d_same", &conv2d_same_meta);
  m.impl("max_pool_2x2", &max_pool_2x2);
  m.impl("std_mean_last", &std_mean_last_meta);
  m.impl("cdist", &cdist_meta);
  m.impl("einsum_bmm", &einsum_bmm);
}
