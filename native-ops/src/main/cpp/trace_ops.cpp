// Trace safety (issue 42), stable ABI: kernels as op authors write them that torch.compile(dynamic=True)
// cannot trace, each marked with the one trace.* check it must trip, and their good twins (no EXPECT).
// The stable ABI has no sym_size: a good kernel lets aten ops size its outputs and reads no size itself.
// Each op's verdict in real PyTorch 2.13.0 (torch.library.opcheck, which runs test_aot_dispatch_dynamic)
// is quoted above it; the command that gave them is in fixtures/specs/trace/real-pytorch.json.
#include "kernels.h"

using namespace opcheck4j;

namespace {

Tensor copy_kernel(Tensor x) { return detach(torch::stable::clone(x)); }

Tensor contiguous_copy(Tensor x) { return detach(torch::stable::contiguous(torch::stable::clone(x))); }

Tensor flat_copy(Tensor x) { return detach(torch::stable::clone(torch::stable::reshape(x, {-1}))); }

// A Meta kernel that sizes its flat output with numel(). test_aot_dispatch_dynamic: "RuntimeError: Cannot
// call numel() on tensor with symbolic sizes/strides".
// OP: trace_ops::flatten_numel_meta
// EXPECT: trace.symbolic-sizes
Tensor flatten_numel_meta_meta(Tensor x) { return torch::stable::new_empty(x, {x.numel()}); }

// Its good twin: no Meta kernel of its own, a composite of aten::reshape that reads no size. opcheck: all SUCCESS.
// OP: trace_ops::flatten_composite
Tensor flatten_composite(Tensor x) { return torch::stable::reshape(x, {-1}); }

// A Meta kernel sized with sizes(): FakeTensor returns the hints and guards on them, so the trace is
// specialised to the example's shape (a recompile for another). opcheck: all SUCCESS; opcheck4j: a
// trace.specialization warning naming the guard.
// OP: trace_ops::copy_sizes_meta
// EXPECT: trace.specialization
Tensor copy_sizes_meta_meta(Tensor x) { return torch::stable::new_empty(x, x.sizes()); }

// Its good twin: empty_like sizes the output from the symbolic sizes. opcheck: all SUCCESS, no guard.
// OP: trace_ops::copy_like_meta
Tensor copy_like_meta_meta(Tensor x) { return torch::stable::empty_like(x); }

// A composite that reads its input's first value to size its output (the count of leading elements to
// keep). test_aot_dispatch_dynamic: "RuntimeError: Cannot access data pointer of Tensor (e.g. FakeTensor,
// FunctionalTensor)".
// OP: trace_ops::head_by_value
// It reads through the writable data_ptr(), as production code of its kind does, which materializes a
// lazy clone (memory.cow-input's warning, a second finding by design). It stays as written, as its classic
// twin does, whose read through const_data_ptr() died of SIGSEGV under real PyTorch 2.13.0's FakeTensor.
// EXPECT: trace.data, memory.cow-input
Tensor head_by_value(Tensor x) {
  STD_TORCH_CHECK(x.is_cpu() && x.dim() == 1 && x.scalar_type() == ScalarType::Long, "x must be a 1-D int64 cpu tensor");
  const int64_t* v = static_cast<const int64_t*>(x.data_ptr());
  int64_t n = x.size(0) == 0 ? 0 : std::min<int64_t>(std::max<int64_t>(v[0], 0), x.size(0));
  return torch::stable::narrow(x, 0, 0, n);
}

// A composite that branches on how many elements are non-zero. test_aot_dispatch_dynamic:
// "GuardOnDataDependentSymNode: Could not extract specialized integer from data-dependent expression u0".
// OP: trace_ops::scale_if_any
// EXPECT: trace.data-dependent
Tensor scale_if_any(Tensor x) {
  Tensor nz = unary("aten::nonzero", x);
  if (nz.size(0) == 0) return torch::stable::clone(x);
  return mul(x, scalar_like(x, 2.0));
}

// The good twin of both: the data-dependent size stays aten's (nonzero's unbacked size), never read.
// opcheck: all SUCCESS.
// OP: trace_ops::nonzero_rows
Tensor nonzero_rows(Tensor x) { return unary("aten::nonzero", x); }

// The inner-op pattern of torchvision's roi_pool (issue 52): a composite calls an inner custom op through the
// dispatcher and calls numel() on its output; the inner op's Meta kernel sizes that output from size(0) of
// its input and an int argument. Under FakeTensor a size read through sizes()/size(d) is the hint, after a
// guard, so the output built from those ints has concrete sizes and numel() on it is allowed.
// test_aot_dispatch_dynamic: SUCCESS (all of opcheck: SUCCESS); the guard is trace.specialization's note.
// OP: trace_ops::pool_rows
// OP: trace_ops::pool_rows_impl
Tensor pool_rows_impl_cpu(Tensor x, int64_t k) {
  STD_TORCH_CHECK(x.dim() == 2 && x.scalar_type() == ScalarType::Float && k >= 1,
                  "pool_rows_impl: x must be a 2-D float32 tensor and k >= 1");
  Tensor xc = torch::stable::contiguous(x);
  Tensor out = torch::stable::new_empty(x, {x.size(0), k});
  for (int64_t r = 0; r < x.size(0); ++r) {
    double sum = 0;
    for (int64_t c = 0; c < x.size(1); ++c) sum += elem(xc, r * x.size(1) + c);
    for (int64_t j = 0; j < k; ++j) put(out, r * k + j, sum);
  }
  return out;
}

Tensor pool_rows_impl_meta(Tensor x, int64_t k) {
  STD_TORCH_CHECK(x.dim() == 2 && x.scalar_type() == ScalarType::Float && k >= 1,
                  "pool_rows_impl: x must be a 2-D float32 tensor and k >= 1");
  return torch::stable::new_empty(x, {x.size(0), k});
}

Tensor call_inner(const char* op, const Tensor& x, int64_t k) {
  std::array<StableIValue, 2> stack{torch::stable::detail::from(x), torch::stable::detail::from(k)};
  STABLE_TORCH_ERROR_CODE_CHECK(torch_call_dispatcher(op, "", stack.data(), TORCH_ABI_VERSION));
  return torch::stable::detail::to<Tensor>(stack[0]);
}

Tensor pool_rows(Tensor x, int64_t k) {
  Tensor out = call_inner("trace_ops::pool_rows_impl", x, k);
  STD_TORCH_CHECK(out.numel() >= 0, "pool_rows: the inner op returned no tensor");
  return out;
}

// Its unsafe form: the inner op's Meta kernel sizes its output with empty_like, which keeps the symbolic
// sizes, so numel() on it raises. test_aot_dispatch_dynamic: "RuntimeError: Cannot call numel() on tensor
// with symbolic sizes/strides".
// OP: trace_ops::pool_like
// EXPECT: trace.symbolic-sizes
// OP: trace_ops::pool_like_impl
Tensor pool_like_impl_cpu(Tensor x, int64_t k) {
  STD_TORCH_CHECK(x.dim() == 2 && x.scalar_type() == ScalarType::Float && k >= 1,
                  "pool_like_impl: x must be a 2-D float32 tensor and k >= 1");
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i) * static_cast<double>(k); });
}

Tensor pool_like_impl_meta(Tensor x, int64_t k) {
  STD_TORCH_CHECK(x.dim() == 2 && x.scalar_type() == ScalarType::Float && k >= 1,
                  "pool_like_impl: x must be a 2-D float32 tensor and k >= 1");
  // the cpu kernel's output is contiguous: so is this one, its sizes kept symbolic
  return torch::stable::empty_like(torch::stable::contiguous(x));
}

Tensor pool_like(Tensor x, int64_t k) {
  Tensor out = call_inner("trace_ops::pool_like_impl", x, k);
  STD_TORCH_CHECK(out.numel() >= 0, "pool_like: the inner op returned no tensor");
  return out;
}

}  // namespace

STABLE_TORCH_LIBRARY(trace_ops, m) {
  m.def("flatten_numel_meta(Tensor x) -> Tensor");
  m.def("flatten_composite(Tensor x) -> Tensor");
  m.def("copy_sizes_meta(Tensor x) -> Tensor");
  m.def("copy_like_meta(Tensor x) -> Tensor");
  m.def("head_by_value(Tensor x) -> Tensor");
  m.def("scale_if_any(Tensor x) -> Tensor");
  m.def("nonzero_rows(Tensor x) -> Tensor");
  m.def("pool_rows_impl(Tensor x, int k) -> Tensor");
  m.def("pool_rows(Tensor x, int k) -> Tensor");
  m.def("pool_like_impl(Tensor x, int k) -> Tensor");
  m.def("pool_like(Tensor x, int k) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(trace_ops, CPU, m) {
  m.impl("flatten_numel_meta", TORCH_BOX(&flat_copy));
  m.impl("copy_sizes_meta", TORCH_BOX(&contiguous_copy));
  m.impl("copy_like_meta", TORCH_BOX(&copy_kernel));
  m.impl("pool_rows_impl", TORCH_BOX(&pool_rows_impl_cpu));
  m.impl("pool_like_impl", TORCH_BOX(&pool_like_impl_cpu));
}

STABLE_TORCH_LIBRARY_IMPL(trace_ops, Meta, m) {
  m.impl("flatten_numel_meta", TORCH_BOX(&flatten_numel_meta_meta));
  m.impl("copy_sizes_meta", TORCH_BOX(&copy_sizes_meta_meta));
  m.impl("copy_like_meta", TORCH_BOX(&copy_like_meta_meta));
  m.impl("pool_rows_impl", TORCH_BOX(&pool_rows_impl_meta));
  m.impl("pool_like_impl", TORCH_BOX(&pool_like_impl_meta));
}

STABLE_TORCH_LIBRARY_IMPL(trace_ops, CompositeImplicitAutograd, m) {
  m.impl("flatten_composite", TORCH_BOX(&flatten_composite));
  m.impl("head_by_value", TORCH_BOX(&head_by_value));
  m.impl("scale_if_any", TORCH_BOX(&scale_if_any));
  m.impl("nonzero_rows", TORCH_BOX(&nonzero_rows));
  m.impl("pool_rows", TORCH_BOX(&pool_rows));
  m.impl("pool_like", TORCH_BOX(&pool_like));
}
