// Gradients a spec asks for are a claim (issue 28 §2), and gradcheck runs on every layout the generator
// draws (issue 28 §4). An example whose floating-point input says "requires_grad": true claims the op is
// differentiable there: a gradient that stops or is silently zero fails gradcheck.jacobian, as
// torch.autograd.gradcheck fails it. An op whose inputs only the harness marked (its examples ask for no
// gradient) keeps the autograd.differentiable warning. Each op is introduced by `// OP:` and, when it
// has a defect, `// EXPECT:` with the checks it must trip; what PyTorch 2.14.1 says of each (its
// torch.library.opcheck and torch.autograd.gradcheck, on the examples of
// fixtures/specs/gradients/gradient_ops.json) is recorded in fixtures/specs/gradients/real-gradcheck.json.
#include "kernels.h"

#include <cmath>

using namespace opcheck4j;

namespace {

// 2x, computed element by element from x's memory: no aten call, so no autograd history.
Tensor doubled(const Tensor& x) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return 2 * elem(xc, i); });
}

Tensor doubled_kernel(Tensor x) { return doubled(x); }

Tensor elementwise_meta(Tensor x) { return torch::stable::new_empty(x, x.sizes()); }

// OP: gradient_ops::stops
// EXPECT: gradcheck.jacobian
// Kernels at CPU and Meta only: its output does not require grad although the example's x does, so the
// gradient the spec asks for stops here (a backend op with no autograd kernel).
// (kernel: doubled_kernel)

// OP: gradient_ops::probed
// EXPECT: autograd.differentiable
// The same kernels, with an example that asks for no gradient: only the harness's own probe marks x, so
// the stopped gradient stays a warning (opcheck passes the op; it is correct for inference).
// (kernel: doubled_kernel)

// OP: gradient_ops::cut_graph
// EXPECT: gradcheck.jacobian
// CompositeImplicitAutograd, but the value is computed from detach(x): the op registers autograd and
// its output does not require grad. Before gradients were a claim nothing said so.
Tensor cut_graph(Tensor x) { return mul(detach(x), scalar_like(x, 2.0)); }

// OP: gradient_ops::silently_zero
// EXPECT: gradcheck.jacobian
// CompositeImplicitAutograd: the value is computed from detach(x), and x * 0 keeps the output attached
// to the graph, so it requires grad and its gradient is a tensor of zeros. Training sees no error.
Tensor silently_zero(Tensor x) {
  return add(mul(detach(x), scalar_like(x, 2.0)), mul(x, scalar_like(x, 0.0)));
}

// OP: gradient_ops::flows
// The good twin: 2x through aten::mul, CompositeImplicitAutograd; its gradient is 2 everywhere.
Tensor flows(Tensor x) { return mul(x, scalar_like(x, 2.0)); }

// OP: gradient_ops::declared_flat
// EXPECT: gradcheck.jacobian
// The spec declares it non-differentiable ("differentiable": false) and its example's x requires grad:
// the gradient must then be zero (gradcheck's rule for a function with no differentiable output), but
// the output is 2x.
// (kernel: doubled_kernel)

// OP: gradient_ops::floor_flat
// The good twin of declared_flat: floor(x), element by element, declared non-differentiable; its
// numerical gradient is zero away from the integers, so gradcheck passes it with x requiring grad.
Tensor floor_flat(Tensor x) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return std::floor(elem(xc, i)); });
}

// OP: gradient_ops::raw_scale_forward
// EXPECT: noncontiguous
// The forward of raw_scale, at CPU and Meta: a loop over x.data_ptr() that assumes a contiguous x (the
// defect), so a transposed, strided or channels_last x is read in memory order. (data_ptr() includes
// the storage offset: an offset x is read right.)
Tensor raw_scale_forward(Tensor x) { return map_new(x, [&](int64_t i) { return 2 * elem(x, i); }); }

// OP: gradient_ops::raw_scale
// EXPECT: gradcheck.jacobian, noncontiguous
// An mmcv-style op with a custom backward, at the Autograd key: the value comes from the backend op
// raw_scale_forward (called through the dispatcher on detach(x), as an autograd.Function calls its
// extension's forward), the gradient from 2x through aten::mul (s - detach(s) adds exactly zero to the
// value). On a layout the forward misreads, value and gradient disagree: a Jacobian mismatch there, and
// none on contiguous and offset inputs.
Tensor raw_scale(Tensor x) {
  Tensor value = aten<1>("gradient_ops::raw_scale_forward", "", {torch::stable::detail::from(detach(x))});
  Tensor s = mul(x, scalar_like(x, 2.0));
  return add(value, torch::stable::subtract(s, detach(s)));
}

}  // namespace

STABLE_TORCH_LIBRARY(gradient_ops, m) {
  m.def("stops(Tensor x) -> Tensor");
  m.def("probed(Tensor x) -> Tensor");
  m.def("cut_graph(Tensor x) -> Tensor");
  m.def("silently_zero(Tensor x) -> Tensor");
  m.def("flows(Tensor x) -> Tensor");
  m.def("declared_flat(Tensor x) -> Tensor");
  m.def("floor_flat(Tensor x) -> Tensor");
  m.def("raw_scale_forward(Tensor x) -> Tensor");
  m.def("raw_scale(Tensor x) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(gradient_ops, CompositeImplicitAutograd, m) {
  m.impl("cut_graph", TORCH_BOX(&cut_graph));
  m.impl("silently_zero", TORCH_BOX(&silently_zero));
  m.impl("flows", TORCH_BOX(&flows));
}

STABLE_TORCH_LIBRARY_IMPL(gradient_ops, Autograd, m) {
  m.impl("raw_scale", TORCH_BOX(&raw_scale));
}

STABLE_TORCH_LIBRARY_IMPL(gradient_ops, CPU, m) {
  m.impl("stops", TORCH_BOX(&doubled_kernel));
  m.impl("probed", TORCH_BOX(&doubled_kernel));
  m.impl("declared_flat", TORCH_BOX(&doubled_kernel));
  m.impl("floor_flat", TORCH_BOX(&floor_flat));
  m.impl("raw_scale_forward", TORCH_BOX(&raw_scale_forward));
  m.impl("raw_scale", TORCH_BOX(&raw_scale_forward));
}

STABLE_TORCH_LIBRARY_IMPL(gradient_ops, Meta, m) {
  m.impl("stops", TORCH_BOX(&elementwise_meta));
  m.impl("probed", TORCH_BOX(&elementwise_meta));
  m.impl("declared_flat", TORCH_BOX(&elementwise_meta));
  m.impl("floor_flat", TORCH_BOX(&elementwise_meta));
  m.impl("raw_scale_forward", TORCH_BOX(&elementwise_meta));
  m.impl("raw_scale", TORCH_BOX(&elementwise_meta));
}
