// Known-bad operators: one defect each. Every op below is introduced by an `OP:` line and an
// `EXPECT:` line listing every check its one defect must trip; the harness tests assert that the
// op fails exactly those checks (by id) and no others, on every available device.
#include "kernels.h"

#include <atomic>
#include <cmath>
#include <limits>

using namespace opcheck4j;

namespace {

Tensor elementwise_meta(Tensor x) { return torch::stable::new_empty(x, x.sizes()); }

Tensor doubled(const Tensor& x) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return 2 * elem(xc, i); });
}

Tensor doubled_kernel(Tensor x) { return doubled(x); }
Tensor elementwise_meta_s(Tensor x, double s) { return elementwise_meta(x); }

// OP: bad_ops::no_kernel
// EXPECT: registration.any-kernel
// (defined, never implemented: see STABLE_TORCH_LIBRARY below)

// OP: bad_ops::ghost
// EXPECT: registration.dangling
// (implemented, never defined)
Tensor ghost(Tensor x) { return doubled(x); }

// OP: bad_ops::dict_arg
// EXPECT: schema.types
// Dict is not a custom-op argument type. The boxed kernel is never reached: libtorch cannot
// convert a Dict to the stable ABI.
void dict_arg_boxed(StableIValue* stack, uint64_t, uint64_t) {
  STD_TORCH_CHECK(false, "dict_arg: not callable through the stable ABI");
}

// OP: bad_ops::scale_
// EXPECT: schema.inplace-name
// The trailing underscore promises an in-place op, but x is not declared (a!) (nor written).
Tensor scale_(Tensor x, double s) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return s * elem(xc, i); });
}

// OP: bad_ops::fill_ret
// EXPECT: schema.functionalizable
// Mutates x (declared) and returns x itself as Tensor(a!): torch.compile cannot functionalize it.
// (SchemaCheckMode allows returning a mutable input, so alias.returns-input leaves it alone.)
Tensor fill_ret(Tensor x, double v) {
  torch::stable::fill_(x, v);
  return x;
}
Tensor fill_ret_meta(Tensor x, double v) { return x; }

// OP: bad_ops::alias_nowhere
// EXPECT: schema.alias-target
// Returns Tensor(a), but no input is in alias set a.
Tensor alias_nowhere(Tensor x) { return doubled(x); }

// OP: bad_ops::out_unannotated
// EXPECT: schema.mutable-args, mutation.undeclared
// Returns nothing and writes `out`, which is not declared (a!).
void out_unannotated(Tensor x, Tensor out) {
  STD_TORCH_CHECK(sizes_of(x) == sizes_of(out), "out_unannotated: out must have x's shape");
  torch::stable::copy_(out, doubled(x));
}
void out_unannotated_meta(Tensor x, Tensor out) {
  STD_TORCH_CHECK(sizes_of(x) == sizes_of(out), "out_unannotated: out must have x's shape");
}

// OP: bad_ops::mutates_input
// EXPECT: mutation.undeclared
// Writes x[0] although x is not (a!).
Tensor mutates_input(Tensor x) {
  Tensor out = doubled(x);
  if (x.numel() > 0 && x.is_contiguous()) put(x, 0, elem(x, 0) + 1.0);
  return out;
}

// OP: bad_ops::mutates_tiny
// EXPECT: mutation.undeclared
// Changes x[0] by one ulp (relative ~1e-16 in float64): invisible to allclose, visible bitwise.
Tensor mutates_tiny(Tensor x) {
  Tensor out = doubled(x);
  if (x.numel() > 0 && x.is_contiguous()) bump_ulp(x, 0);
  return out;
}

// OP: bad_ops::view_undeclared
// EXPECT: alias.undeclared, autograd.registration
// (its cpu kernel returns an aten view: with an input that requires grad, autograd is recorded inside it)
// Returns a view of x (shares its storage) without declaring Tensor(a) on both sides.
Tensor view_undeclared(Tensor x) { return torch::stable::view(x, x.sizes()); }

// OP: bad_ops::returns_input
// EXPECT: alias.returns-input
// Returns the very input tensor.
Tensor returns_input(Tensor x) { return x; }

// OP: bad_ops::same_outputs
// EXPECT: alias.outputs
// Returns one fresh tensor twice.
std::tuple<Tensor, Tensor> same_outputs(Tensor x) {
  Tensor y = doubled(x);
  return {y, y};
}
std::tuple<Tensor, Tensor> same_outputs_meta(Tensor x) {
  Tensor y = elementwise_meta(x);
  return {y, y};
}

// OP: bad_ops::meta_rank
// EXPECT: fake.metadata, trace.symbolic-sizes
// (its numel() fails real PyTorch 2.13.0's test_aot_dispatch_dynamic too: fixtures/specs/trace/real-pytorch.json)
// The meta kernel flattens the output: wrong rank.
Tensor meta_rank_meta(Tensor x) { return torch::stable::new_empty(x, {x.numel()}); }

// OP: bad_ops::meta_strides
// EXPECT: fake.metadata
// The meta kernel returns a column-major (transposed) layout where the CPU kernel is row-major.
Tensor meta_strides_meta(Tensor x) {
  STD_TORCH_CHECK(x.dim() == 2, "meta_strides: x must be 2-d");
  Tensor t = torch::stable::new_empty(x, {x.size(1), x.size(0)});
  return torch::stable::transpose(t, 0, 1);
}

// OP: bad_ops::meta_dtype
// EXPECT: fake.metadata
// The meta kernel always says float64.
Tensor meta_dtype_meta(Tensor x) {
  return torch::stable::new_empty(x, x.sizes(), ScalarType::Double);
}

// OP: bad_ops::no_meta
// EXPECT: fake.missing, registration.device-kernel
// No Meta kernel and no composite kernel.
Tensor no_meta(Tensor x) { return doubled(x); }

// OP: bad_ops::aten_in_cpu
// EXPECT: autograd.registration
// Autograd "registered at a backend key": the CPU kernel calls differentiable aten ops, so its
// outputs require grad although no autograd kernel exists.
// (the same function serves Meta: aten::mul has a meta kernel, so strides agree)
Tensor aten_in_cpu(Tensor x) { return mul(x, scalar_like(x, 2.0)); }

// OP: bad_ops::grad_stops
// EXPECT: autograd.differentiable
// A float op with no autograd at all: gradients silently stop here (a warning: opcheck passes it).
Tensor grad_stops(Tensor x) { return doubled(x); }

// OP: bad_ops::nondeterministic
// EXPECT: determinism
// Every other call nudges one element by one ulp.
std::atomic<int64_t> calls{0};
Tensor nondeterministic(Tensor x) {
  Tensor out = doubled(x);
  if (out.numel() > 0 && (calls++ % 2 == 1)) {
    bump_ulp(out, 0);
  }
  return out;
}

// OP: bad_ops::ignores_strides
// EXPECT: noncontiguous
// Reads the buffer as if every input were contiguous.
Tensor ignores_strides(Tensor x) {
  Tensor out = torch::stable::new_empty(x, x.sizes());
  for (int64_t i = 0; i < x.numel(); ++i) put(out, i, 2 * elem(x, i));
  return out;
}

// OP: bad_ops::raises
// EXPECT: kernel.error
// Rejects a valid example.
Tensor raises(Tensor x) {
  STD_TORCH_CHECK(false, "raises: this kernel refuses every input");
  return x;
}

// OP: bad_ops::square_wrong_grad
// EXPECT: gradcheck.jacobian
// Forward x*x, gradient 3x: the value is a detached x*x, the gradient comes from s(x) = 1.5*x*x
// through s - detach(s), which adds exactly zero to the value.
Tensor square_wrong_grad(Tensor x) {
  Tensor xd = detach(x);
  Tensor value = mul(xd, xd);
  Tensor s = mul(mul(x, x), scalar_like(x, 1.5));
  return add(value, torch::stable::subtract(s, detach(s)));
}

// OP: bad_ops::det_backward_no_meta
// EXPECT: autograd.meta
// The determinant, through aten::linalg_det: its forward runs on meta, but its backward needs
// aten::where.self, which has no Meta kernel: the backward works on CPU only.
Tensor det_backward_no_meta(Tensor x) {
  return aten<1>("aten::linalg_det", "", {torch::stable::detail::from(x)});
}

// OP: bad_ops::grad_nondeterministic
// EXPECT: gradcheck.jacobian
// Forward exactly x; the gradient is 1 + 1e-10 * (calls so far): within gradcheck's tolerance, but
// two identical backward runs give different Jacobians (found by slow mode's reentrancy check).
std::atomic<int64_t> grad_calls{0};
Tensor grad_nondeterministic(Tensor x) {
  Tensor s = mul(x, scalar_like(x, 1.0 + 1e-10 * static_cast<double>(++grad_calls)));
  return add(detach(x), torch::stable::subtract(s, detach(s)));
}

// OP: bad_ops::meta_hardcoded
// EXPECT: fake.metadata
// The meta kernel hard-codes the example's output shape (4 x 3): right on the example, wrong on
// every other shape. Only generated inputs catch it.
Tensor meta_hardcoded_meta(Tensor x) { return torch::stable::new_empty(x, {4, 3}); }

// OP: bad_ops::twin.copy
// EXPECT: torchscript.call
// Two overloads that take the same arguments: TorchScript binds a call by argument types, first
// registered first, so a call meant for twin.copy runs twin (doubling) instead. This overload cannot
// be reached from TorchScript or from any saved model.
Tensor twin_copy(Tensor x) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i); });
}

// OP: bad_ops::shadowed.one
// EXPECT: torchscript.roundtrip
// shadowed(Tensor x, Tensor? y=None), registered first, also accepts a call with x alone. In a
// graph the call binds shadowed.one by its exact arguments, but the saved code names no overload
// (ops.bad_ops.shadowed(x)) and the importer binds the first overload that fits: the reloaded
// model runs the doubling kernel where the scripted one added one.
Tensor shadowed(Tensor x, std::optional<Tensor> y) { return doubled(x); }
Tensor shadowed_meta(Tensor x, std::optional<Tensor> y) { return elementwise_meta(x); }
Tensor shadowed_one(Tensor x) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i) + 1; });
}

// OP: bad_ops::meta_swaps_square
// EXPECT: fake.metadata
// transpose_copy: the CPU kernel returns x transposed ([cols, rows]); the meta kernel returns
// [rows, cols]. The same on a square example; only an untied (non-square) generated input shows it.
Tensor meta_swaps_square(Tensor x) {
  STD_TORCH_CHECK(x.dim() == 2, "meta_swaps_square: x must be 2-d, got ", x.dim(), "-d");
  check_floating(x, "meta_swaps_square: x");
  Tensor xc = torch::stable::contiguous(x);
  int64_t rows = x.size(0), cols = x.size(1);
  Tensor out = torch::stable::new_empty(x, {cols, rows});
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) put(out, j * rows + i, elem(xc, i * cols + j));
  return out;
}
Tensor meta_swaps_square_meta(Tensor x) {
  STD_TORCH_CHECK(x.dim() == 2, "meta_swaps_square: x must be 2-d, got ", x.dim(), "-d");
  return torch::stable::new_empty(x, {x.size(0), x.size(1)});
}

// OP: bad_ops::assumes_unit_stride
// EXPECT: noncontiguous
// Row sums that honour the storage offset and the row stride but assume the last dim has stride 1:
// raises on nothing, silently wrong on a transposed (or strided) input.
Tensor assumes_unit_stride(Tensor x) {
  STD_TORCH_CHECK(x.dim() == 2, "assumes_unit_stride: x must be 2-d, got ", x.dim(), "-d");
  check_floating(x, "assumes_unit_stride: x");
  int64_t rows = x.size(0), cols = x.size(1);
  Tensor out = torch::stable::new_empty(x, {rows});
  bool dbl = x.scalar_type() == ScalarType::Double;
  for (int64_t i = 0; i < rows; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < cols; ++j) {
      int64_t at = i * x.stride(0) + j;  // the bug: j * x.stride(1)
      sum += dbl ? static_cast<const double*>(x.const_data_ptr())[at] : static_cast<const float*>(x.const_data_ptr())[at];
    }
    put(out, i, sum);
  }
  return out;
}
Tensor assumes_unit_stride_meta(Tensor x) {
  STD_TORCH_CHECK(x.dim() == 2, "assumes_unit_stride: x must be 2-d, got ", x.dim(), "-d");
  return torch::stable::new_empty(x, {x.size(0)});
}

// OP: bad_ops::declared_view
// EXPECT: schema.functionalizable, autograd.registration
// (its cpu kernel returns an aten view: with an input that requires grad, autograd is recorded inside it)
// Returns a view of x and declares it (Tensor(a) x -> Tensor(a)), with CPU and Meta kernels:
// correct for SchemaCheckMode, but functionalization supports no custom op whose output has an alias
// annotation, so torch.compile rejects it.
Tensor declared_view(Tensor x) { return torch::stable::view(x, x.sizes()); }

// OP: bad_ops::scalar_arg
// EXPECT: kernel.error
// A kernel taking `Scalar`: libtorch 2.10's stable ABI cannot pass a Scalar to a stable kernel, so
// the kernel never runs. The defect is the schema, on this runtime; the message must blame the runtime.
Tensor scalar_arg(Tensor x, double s) { return doubled(x); }

// OP: bad_ops::only_5d
// EXPECT: generate.examples
// A kernel for 5-d inputs only, with no example in the spec: no synthesized candidate is 5-d, so
// no value check could run. That must fail (value checks never ran), never pass silently.
Tensor only_5d(Tensor x) {
  STD_TORCH_CHECK(x.dim() == 5, "only_5d: x must be 5-d, got ", x.dim(), "-d");
  return doubled(x);
}

// The warning checks' known-bad ops: each finding is a warning (stricter than PyTorch), never a failure.

// OP: bad_ops::contiguous_only
// EXPECT: noncontiguous.rejected
// Raises a clear error on a non-contiguous input (its meta kernel says the same): outside its
// domain, not wrong; a warning naming the argument and the kernel's message.
Tensor contiguous_only(Tensor x) {
  STD_TORCH_CHECK(x.is_contiguous(), "contiguous_only: x must be contiguous");
  return doubled(x);
}
Tensor contiguous_only_meta(Tensor x) {
  STD_TORCH_CHECK(x.is_contiguous(), "contiguous_only: x must be contiguous");
  return elementwise_meta(x);
}

// OP: bad_ops::meta_unchecked
// EXPECT: fake.permissive
// The CPU kernel rejects an odd number of elements; the meta kernel checks nothing, so under
// torch.compile the error appears only at run time. A warning quoting the CPU kernel's message.
Tensor meta_unchecked(Tensor x) {
  STD_TORCH_CHECK(x.numel() % 2 == 0, "meta_unchecked: x must have an even number of elements");
  return doubled(x);
}

// OP: bad_ops::narrow_domain
// EXPECT: generate.domain, trace.symbolic-sizes
// (its Meta kernel's numel() fails real PyTorch 2.13.0's test_aot_dispatch_dynamic too: fixtures/specs/trace/real-pytorch.json)
// Accepts exactly 12 elements (and says so, on meta too): most generated inputs are outside its
// domain, so they test nothing; a warning with what made the kernel reject them.
Tensor narrow_domain(Tensor x) {
  STD_TORCH_CHECK(x.numel() == 12, "narrow_domain: x must have 12 elements");
  return doubled(x);
}
Tensor narrow_domain_meta(Tensor x) {
  STD_TORCH_CHECK(x.numel() == 12, "narrow_domain: x must have 12 elements");
  return elementwise_meta(x);
}

// OP: bad_ops::stale_out
// EXPECT: mutation.unused
// Declares out (a!) but never writes it: a stale annotation that costs torch.compile a copy.
void stale_out(Tensor x, Tensor out) {}

// OP: bad_ops::out_returns_new
// EXPECT: schema.out-variant
// An out= op that writes out = 2x and also returns a new tensor instead of out itself: a caller
// that passes out= gets back a tensor it did not pass.
void require_out_like(const Tensor& x, const Tensor& out) {
  STD_TORCH_CHECK(sizes_of(x) == sizes_of(out), "out_returns_new: out must have x's sizes");
  STD_TORCH_CHECK(x.scalar_type() == out.scalar_type(), "out_returns_new: out must have x's dtype");
}
Tensor out_returns_new(Tensor x, Tensor out) {
  require_out_like(x, out);
  torch::stable::copy_(out, doubled(x));
  return doubled(x);
}
Tensor out_returns_new_meta(Tensor x, Tensor out) {
  require_out_like(x, out);
  return elementwise_meta(x);
}

}  // namespace

STABLE_TORCH_LIBRARY(bad_ops, m) {
  m.def("no_kernel(Tensor x) -> Tensor");
  m.def("dict_arg(Dict(str, Tensor) d) -> Tensor");
  m.def("scale_(Tensor x, float s) -> Tensor");
  m.def("fill_ret(Tensor(a!) x, float v) -> Tensor(a!)");
  m.def("alias_nowhere(Tensor x) -> Tensor(a)");
  m.def("out_unannotated(Tensor x, *, Tensor out) -> ()");
  m.def("mutates_input(Tensor x) -> Tensor");
  m.def("mutates_tiny(Tensor x) -> Tensor");
  m.def("view_undeclared(Tensor x) -> Tensor");
  m.def("returns_input(Tensor x) -> Tensor");
  m.def("same_outputs(Tensor x) -> (Tensor, Tensor)");
  m.def("meta_rank(Tensor x) -> Tensor");
  m.def("meta_strides(Tensor x) -> Tensor");
  m.def("meta_dtype(Tensor x) -> Tensor");
  m.def("no_meta(Tensor x) -> Tensor");
  m.def("aten_in_cpu(Tensor x) -> Tensor");
  m.def("grad_stops(Tensor x) -> Tensor");
  m.def("nondeterministic(Tensor x) -> Tensor");
  m.def("ignores_strides(Tensor x) -> Tensor");
  m.def("raises(Tensor x) -> Tensor");
  m.def("square_wrong_grad(Tensor x) -> Tensor");
  m.def("det_backward_no_meta(Tensor x) -> Tensor");
  m.def("grad_nondeterministic(Tensor x) -> Tensor");
  m.def("meta_hardcoded(Tensor x) -> Tensor");
  m.def("twin(Tensor x) -> Tensor");
  m.def("twin.copy(Tensor x) -> Tensor");
  m.def("shadowed(Tensor x, Tensor? y=None) -> Tensor");
  m.def("shadowed.one(Tensor x) -> Tensor");
  m.def("meta_swaps_square(Tensor x) -> Tensor");
  m.def("assumes_unit_stride(Tensor x) -> Tensor");
  m.def("declared_view(Tensor(a) x) -> Tensor(a)");
  m.def("scalar_arg(Tensor x, Scalar s) -> Tensor");
  m.def("only_5d(Tensor x) -> Tensor");
  m.def("contiguous_only(Tensor x) -> Tensor");
  m.def("meta_unchecked(Tensor x) -> Tensor");
  m.def("narrow_domain(Tensor x) -> Tensor");
  m.def("stale_out(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("out_returns_new(Tensor x, *, Tensor(a!) out) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(bad_ops, CompositeImplicitAutograd, m) {
  m.impl("square_wrong_grad", TORCH_BOX(&square_wrong_grad));
  m.impl("det_backward_no_meta", TORCH_BOX(&det_backward_no_meta));
  m.impl("grad_nondeterministic", TORCH_BOX(&grad_nondeterministic));
}

STABLE_TORCH_LIBRARY_IMPL(bad_ops, CPU, m) {
  m.impl("ghost", TORCH_BOX(&ghost));
  m.impl("dict_arg", &dict_arg_boxed);
  m.impl("scale_", TORCH_BOX(&scale_));
  m.impl("fill_ret", TORCH_BOX(&fill_ret));
  m.impl("alias_nowhere", TORCH_BOX(&alias_nowhere));
  m.impl("out_unannotated", TORCH_BOX(&out_unannotated));
  m.impl("mutates_input", TORCH_BOX(&mutates_input));
  m.impl("mutates_tiny", TORCH_BOX(&mutates_tiny));
  m.impl("view_undeclared", TORCH_BOX(&view_undeclared));
  m.impl("returns_input", TORCH_BOX(&returns_input));
  m.impl("same_outputs", TORCH_BOX(&same_outputs));
  m.impl("meta_rank", TORCH_BOX(&doubled_kernel));
  m.impl("meta_strides", TORCH_BOX(&doubled_kernel));
  m.impl("meta_dtype", TORCH_BOX(&doubled_kernel));
  m.impl("no_meta", TORCH_BOX(&no_meta));
  m.impl("aten_in_cpu", TORCH_BOX(&aten_in_cpu));
  m.impl("grad_stops", TORCH_BOX(&grad_stops));
  m.impl("nondeterministic", TORCH_BOX(&nondeterministic));
  m.impl("ignores_strides", TORCH_BOX(&ignores_strides));
  m.impl("raises", TORCH_BOX(&raises));
  m.impl("meta_hardcoded", TORCH_BOX(&doubled_kernel));
  m.impl("twin", TORCH_BOX(&doubled_kernel));
  m.impl("twin.copy", TORCH_BOX(&twin_copy));
  m.impl("shadowed", TORCH_BOX(&shadowed));
  m.impl("shadowed.one", TORCH_BOX(&shadowed_one));
  m.impl("meta_swaps_square", TORCH_BOX(&meta_swaps_square));
  m.impl("assumes_unit_stride", TORCH_BOX(&assumes_unit_stride));
  m.impl("declared_view", TORCH_BOX(&declared_view));
  m.impl("scalar_arg", TORCH_BOX(&scalar_arg));
  m.impl("only_5d", TORCH_BOX(&only_5d));
  m.impl("contiguous_only", TORCH_BOX(&contiguous_only));
  m.impl("meta_unchecked", TORCH_BOX(&meta_unchecked));
  m.impl("narrow_domain", TORCH_BOX(&narrow_domain));
  m.impl("stale_out", TORCH_BOX(&stale_out));
  m.impl("out_returns_new", TORCH_BOX(&out_returns_new));
}

STABLE_TORCH_LIBRARY_IMPL(bad_ops, Meta, m) {
  m.impl("dict_arg", &dict_arg_boxed);
  m.impl("scale_", TORCH_BOX(&elementwise_meta_s));
  m.impl("fill_ret", TORCH_BOX(&fill_ret_meta));
  m.impl("alias_nowhere", TORCH_BOX(&elementwise_meta));
  m.impl("out_unannotated", TORCH_BOX(&out_unannotated_meta));
  m.impl("mutates_input", TORCH_BOX(&elementwise_meta));
  m.impl("mutates_tiny", TORCH_BOX(&elementwise_meta));
  m.impl("view_undeclared", TORCH_BOX(&view_undeclared));
  m.impl("returns_input", TORCH_BOX(&returns_input));
  m.impl("same_outputs", TORCH_BOX(&same_outputs_meta));
  m.impl("meta_rank", TORCH_BOX(&meta_rank_meta));
  m.impl("meta_strides", TORCH_BOX(&meta_strides_meta));
  m.impl("meta_dtype", TORCH_BOX(&meta_dtype_meta));
  m.impl("aten_in_cpu", TORCH_BOX(&aten_in_cpu));
  m.impl("grad_stops", TORCH_BOX(&elementwise_meta));
  m.impl("nondeterministic", TORCH_BOX(&elementwise_meta));
  m.impl("ignores_strides", TORCH_BOX(&elementwise_meta));
  m.impl("raises", TORCH_BOX(&elementwise_meta));
  m.impl("meta_hardcoded", TORCH_BOX(&meta_hardcoded_meta));
  m.impl("twin", TORCH_BOX(&elementwise_meta));
  m.impl("twin.copy", TORCH_BOX(&elementwise_meta));
  m.impl("shadowed", TORCH_BOX(&shadowed_meta));
  m.impl("shadowed.one", TORCH_BOX(&elementwise_meta));
  m.impl("meta_swaps_square", TORCH_BOX(&meta_swaps_square_meta));
  m.impl("assumes_unit_stride", TORCH_BOX(&assumes_unit_stride_meta));
  m.impl("declared_view", TORCH_BOX(&declared_view));
  m.impl("scalar_arg", TORCH_BOX(&elementwise_meta_s));
  m.impl("only_5d", TORCH_BOX(&elementwise_meta));
  m.impl("contiguous_only", TORCH_BOX(&contiguous_only_meta));
  m.impl("meta_unchecked", TORCH_BOX(&elementwise_meta));
  m.impl("narrow_domain", TORCH_BOX(&narrow_domain_meta));
  m.impl("stale_out", TORCH_BOX(&stale_out));
  m.impl("out_returns_new", TORCH_BOX(&out_returns_new_meta));
}
