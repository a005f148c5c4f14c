// Second-order and undefined gradients, and declared dtypes in backward (issue 32): gradcheck.gradgrad differentiates an op's backward, as
// torch.autograd.gradgradcheck does (OpInfo's test_fn_gradgrad), and holds an op whose entry says
// "double_backward": false to a backward that raises when differentiated (test_fn_fail_gradgrad). In the
// 2.10 stable ABI an op gets gradients only through aten calls, so its second derivative is the one of
// the aten graph it builds: a straight-through term gives the right first derivative and a wrong (zero)
// second one. Each op is introduced by `// OP:` and, when it has a defect, `// EXPECT:` with the checks it
// must trip; what PyTorch 2.14.1 says of each (torch.library.opcheck, gradcheck and gradgradcheck on the
// examples of fixtures/specs/gradients/second_order_ops.json) is recorded in
// fixtures/specs/gradients/real-gradgradcheck.json.
#include "kernels.h"

using namespace opcheck4j;

namespace {

// OP: second_order_ops::square
// The good twin: x * x through aten::mul, CompositeImplicitAutograd. First derivative 2x, second 2.
Tensor square(Tensor x) { return mul(x, x); }

// x² as a value with no history, plus s - detach(s) for s = x * 2·detach(x): the term adds exactly zero to
// the value and its derivative is 2x, right; its second derivative is zero, because 2·detach(x) is a
// constant to autograd.
Tensor straight_through_square(Tensor x) {
  Tensor value = mul(detach(x), detach(x));
  Tensor s = mul(x, mul(detach(x), scalar_like(x, 2.0)));
  return add(value, torch::stable::subtract(s, detach(s)));
}

// OP: second_order_ops::straight_square
// EXPECT: gradcheck.gradgrad
// A straight-through square: gradcheck passes it (its gradient is 2x), gradgradcheck does not (autograd
// says the second derivative is 0, finite differences of the backward say 2).

// OP: second_order_ops::hard_gate
// The good twin of flat_claim: hardsigmoid(x) through aten, declared "double_backward": false. aten has
// no derivative for hardsigmoid_backward, so differentiating the backward raises, as the entry says.
Tensor hard_gate(Tensor x) { return unary("aten::hardsigmoid", x); }

// OP: second_order_ops::flat_claim
// EXPECT: gradcheck.gradgrad
// The straight-through square again, declared "double_backward": false: differentiating its backward
// does not raise but returns zeros, the silent answer test_fn_fail_gradgrad exists to catch.

// OP: second_order_ops::split_pair
// Two outputs, (2x, x·x), through aten: gradcheck.undefined-grad gives each output in turn an undefined
// grad_output (the other's zero), and aten's backward nodes give x a zero gradient, as gradcheck's
// check_undefined_grad requires. It has no bad twin: in the 2.10 stable ABI every backward node is aten's
// own, which PyTorch tests with check_undefined_grad; a backward that mishandles an undefined grad_output
// needs a torch::autograd::Function, which only code built against the runtime's own classic headers
// can have (this build has 2.14's, whose autograd Node is held by c10::intrusive_ptr where 2.10's is held
// by std::shared_ptr: docs/checks/gradcheck.undefined-grad.md).
std::tuple<Tensor, Tensor> split_pair(Tensor x) { return {mul(x, scalar_like(x, 2.0)), mul(x, x)}; }

// ---- Declared dtypes, backward (dtype.declared: "the same for backward, where gradients run"). The spec
// declares float32, float64, float16 and bfloat16 for both ops; each takes those four and rejects the
// rest with a clear error.
void check_any_floating(const Tensor& x, const char* name) {
  ScalarType t = x.scalar_type();
  STD_TORCH_CHECK(t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half
                      || t == ScalarType::BFloat16, name, ": x must be float32, float64, float16 or bfloat16");
}

// OP: second_order_ops::bessel_i0
// The good twin: the modified Bessel function I0 through aten::i0, whose backward (grad * i1(x)) runs in
// every declared dtype.
Tensor bessel_i0(Tensor x) {
  check_any_floating(x, "bessel_i0");
  return unary("aten::i0", x);
}

// OP: second_order_ops::bessel_i1
// EXPECT: dtype.declared
// I1 through aten::special_i1: its forward runs in all four declared dtypes, but aten's backward for it
// (i1_backward) is written for float32 and float64 only and raises on float16 and bfloat16 ("i1_backward"
// not implemented for 'Half'), which OpInfo's test_dtypes calls a backward dtype that is listed but fails.
// Its spec entry names cpu only: in libtorch 2.10 that backward calls aten::abs.out, which has no Meta
// kernel there (2.14 has one), so autograd.meta would fail it for the runtime's reason, not the op's.
Tensor bessel_i1(Tensor x) {
  check_any_floating(x, "bessel_i1");
  return unary("aten::special_i1", x);
}

}  // namespace

STABLE_TORCH_LIBRARY(second_order_ops, m) {
  m.def("square(Tensor x) -> Tensor");
  m.def("straight_square(Tensor x) -> Tensor");
  m.def("hard_gate(Tensor x) -> Tensor");
  m.def("flat_claim(Tensor x) -> Tensor");
  m.def("split_pair(Tensor x) -> (Tensor, Tensor)");
  m.def("bessel_i0(Tensor x) -> Tensor");
  m.def("bessel_i1(Tensor x) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(second_order_ops, CompositeImplicitAutograd, m) {
  m.impl("square", TORCH_BOX(&square));
  m.impl("straight_square", TORCH_BOX(&straight_through_square));
  m.impl("hard_gate", TORCH_BOX(&hard_gate));
  m.impl("flat_claim", TORCH_BOX(&straight_through_square));
  m.impl("split_pair", TORCH_BOX(&split_pair));
  m.impl("bessel_i0", TORCH_BOX(&bessel_i0));
  m.impl("bessel_i1", TORCH_BOX(&bessel_i1));
}
