// Trace safety (issue 42), classic TORCH_LIBRARY code (built with the runtime's exact headers): the
// defects that need classic code, each marked with the one trace.* check it must trip, and their good
// twins, which read sizes the symbolic way (sym_numel, sym_size). Each op's verdict in real PyTorch 2.13.0
// (torch.library.opcheck, which runs test_aot_dispatch_dynamic) is quoted above it; the command that gave
// them is in fixtures/specs/trace/real-pytorch.json.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <string>

namespace {

// A catch-all kernel (m.def with a function: the dispatcher's CompositeImplicitAutograd) that flattens
// with numel(). test_aot_dispatch_dynamic: "RuntimeError: Cannot call numel() on tensor with symbolic
// sizes/strides".
// OP: trace_classic::flatten_numel
// EXPECT: trace.symbolic-sizes
at::Tensor flatten_numel(const at::Tensor& x) { return x.reshape({x.numel()}); }

// Its good twin: sym_numel() keeps the count symbolic. opcheck: all SUCCESS.
// OP: trace_classic::flatten_sym_numel
at::Tensor flatten_sym_numel(const at::Tensor& x) { return x.reshape_symint({x.sym_numel()}); }

// A Meta kernel that sizes its flat output with numel(). test_aot_dispatch_dynamic: "RuntimeError: Cannot
// call numel() on tensor with symbolic sizes/strides".
// OP: trace_classic::flat_numel_meta
// EXPECT: trace.symbolic-sizes
at::Tensor flat_cpu(const at::Tensor& x) { return x.detach().reshape({-1}).clone(); }
at::Tensor flat_numel_meta(const at::Tensor& x) { return at::empty({x.numel()}, x.options()); }

// Its good twin: the Meta kernel sizes it with sym_numel(). opcheck: all SUCCESS.
// OP: trace_classic::flat_sym_numel_meta
at::Tensor flat_sym_numel_meta(const at::Tensor& x) { return at::empty_symint({x.sym_numel()}, x.options()); }

// A composite that reads a value of its input to size its output. test_aot_dispatch_dynamic:
// "RuntimeError: Cannot access data pointer of Tensor (e.g. FakeTensor, FunctionalTensor)".
// OP: trace_classic::zeros_by_value
// It reads through the writable data_ptr<float>(), as production code of its kind does, which materializes a
// lazy clone (memory.cow-input's warning, a second finding by design): through const_data_ptr() real PyTorch
// 2.13.0 no longer raises under FakeTensor but dies of SIGSEGV (measured), so the read stays as written.
// EXPECT: trace.data, memory.cow-input
at::Tensor zeros_by_value(const at::Tensor& x) {
  // sym_numel() > 0 is decided by the sizes' ranges, no guard; numel() would fail trace.symbolic-sizes first
  TORCH_CHECK(x.scalar_type() == at::kFloat && x.sym_numel() > 0, "x must be a non-empty float32 tensor");
  int64_t n = x.data_ptr<float>()[0] > 0 ? 2 : 3;
  return at::zeros({n}, x.options());
}

// A composite that branches on the size of a nonzero result. test_aot_dispatch_dynamic:
// "GuardOnDataDependentSymNode: Could not extract specialized integer from data-dependent expression u0".
// OP: trace_classic::double_if_any
// EXPECT: trace.data-dependent
at::Tensor double_if_any(const at::Tensor& x) {
  auto nz = at::nonzero(x);
  if (nz.size(0) == 0) return x * 0;
  return x * 2;
}

// Its good twin: the nonzero count stays symbolic (sym_size). opcheck: all SUCCESS.
// OP: trace_classic::zeros_per_nonzero
at::Tensor zeros_per_nonzero(const at::Tensor& x) {
  auto nz = at::nonzero(x);
  return at::zeros_symint({nz.sym_size(0)}, x.options());
}

// The inner-op pattern of torchvision's roi_pool (issue 52), classic: the op's Autograd kernel calls an inner
// custom op through the dispatcher (below autograd, as torchvision's ROIPoolFunction does) and calls numel()
// on its output; the inner op's Meta kernel sizes that output from x.size(0) and an int argument, as
// torchvision's do. A size read through size(d) is the hint after a guard, so the output has concrete sizes
// and numel() on it is allowed. test_aot_dispatch_dynamic: SUCCESS (all of opcheck: SUCCESS).
// OP: trace_classic::pool_rows
// OP: trace_classic::pool_rows_impl
void check_pool_input(const at::Tensor& x, int64_t k) {
  TORCH_CHECK(x.dim() == 2 && x.scalar_type() == at::kFloat && k >= 1, "x must be a 2-D float32 tensor and k >= 1");
}

at::Tensor pool_rows_impl_cpu(const at::Tensor& x, int64_t k) {
  check_pool_input(x, k);
  // on the values alone, as a backend kernel computes (its op has no autograd of its own)
  return x.detach().sum(1, true).expand({x.size(0), k}).contiguous();
}

at::Tensor pool_rows_impl_meta(const at::Tensor& x, int64_t k) {
  check_pool_input(x, k);
  return at::empty({x.size(0), k}, x.options());
}

at::Tensor call_inner(const char* op, const at::Tensor& x, int64_t k) {
  static const auto pool = c10::Dispatcher::singleton().findSchemaOrThrow("trace_classic::pool_rows_impl", "")
      .typed<at::Tensor(const at::Tensor&, int64_t)>();
  static const auto like = c10::Dispatcher::singleton().findSchemaOrThrow("trace_classic::pool_like_impl", "")
      .typed<at::Tensor(const at::Tensor&, int64_t)>();
  at::AutoDispatchBelowADInplaceOrView below;
  return (std::string(op) == "pool_rows_impl" ? pool : like).call(x, k);
}

at::Tensor pool_rows(const at::Tensor& x, int64_t k) {
  at::Tensor out = call_inner("pool_rows_impl", x, k);
  TORCH_CHECK(out.numel() >= 0, "pool_rows: the inner op returned no tensor");
  return out;
}

// Its unsafe form: the inner op's Meta kernel keeps the symbolic sizes (empty_like), so numel() on its
// output raises. test_aot_dispatch_dynamic: "RuntimeError: Cannot call numel() on tensor with symbolic
// sizes/strides".
// OP: trace_classic::pool_like
// EXPECT: trace.symbolic-sizes
// OP: trace_classic::pool_like_impl
at::Tensor pool_like_impl_cpu(const at::Tensor& x, int64_t k) {
  check_pool_input(x, k);
  return x.detach() * static_cast<double>(k);
}

at::Tensor pool_like_impl_meta(const at::Tensor& x, int64_t k) {
  check_pool_input(x, k);
  return at::empty_like(x);
}

at::Tensor pool_like(const at::Tensor& x, int64_t k) {
  at::Tensor out = call_inner("pool_like_impl", x, k);
  TORCH_CHECK(out.numel() >= 0, "pool_like: the inner op returned no tensor");
  return out;
}

}  // namespace

TORCH_LIBRARY(trace_classic, m) {
  m.def("flatten_numel(Tensor x) -> Tensor", &flatten_numel);
  m.def("flatten_sym_numel(Tensor x) -> Tensor", &flatten_sym_numel);
  m.def("flat_numel_meta(Tensor x) -> Tensor");
  m.def("flat_sym_numel_meta(Tensor x) -> Tensor");
  m.def("zeros_by_value(Tensor x) -> Tensor", &zeros_by_value);
  m.def("double_if_any(Tensor x) -> Tensor", &double_if_any);
  m.def("zeros_per_nonzero(Tensor x) -> Tensor", &zeros_per_nonzero);
  m.def("pool_rows_impl(Tensor x, int k) -> Tensor");
  m.def("pool_rows(Tensor x, int k) -> Tensor");
  m.def("pool_like_impl(Tensor x, int k) -> Tensor");
  m.def("pool_like(Tensor x, int k) -> Tensor");
}

TORCH_LIBRARY_IMPL(trace_classic, CPU, m) {
  m.impl("flat_numel_meta", &flat_cpu);
  m.impl("flat_sym_numel_meta", &flat_cpu);
  m.impl("pool_rows_impl", &pool_rows_impl_cpu);
  m.impl("pool_like_impl", &pool_like_impl_cpu);
}

TORCH_LIBRARY_IMPL(trace_classic, Meta, m) {
  m.impl("flat_numel_meta", &flat_numel_meta);
  m.impl("flat_sym_numel_meta", &flat_sym_numel_meta);
  m.impl("pool_rows_impl", &pool_rows_impl_meta);
  m.impl("pool_like_impl", &pool_like_impl_meta);
}

TORCH_LIBRARY_IMPL(trace_classic, Autograd, m) {
  m.impl("pool_rows", &pool_rows);
  m.impl("pool_like", &pool_like);
}
