// Issue 40: an aten error raised inside a stable-ABI call, as the user must see it. Built twice, for the
// stable ABI of 2.10 (errors210_ops: its STABLE_TORCH_ERROR_CODE_CHECK throws only "<call> API call failed at
// kernels.h, line N") and of 2.13 (errors213_ops: it throws "<aten text> (originally from ...)");
// STABLE_ERRORS_NS names the namespace. Both must report aten's own message. The markers name the ops as
// stable_errors::NAME, for either namespace.
#include "kernels.h"

using namespace opcheck4j;

namespace {

// x^T x, through aten::t and aten::mm.
// OP: stable_errors::gram
Tensor gram(Tensor x) {
  return aten<2>("aten::mm", "", {torch::stable::detail::from(unary("aten::t", x)), torch::stable::detail::from(x)});
}

// x x, the transpose forgotten: aten::mm raises "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)" on
// every input that is not square, the spec's example included.
// OP: stable_errors::gram_untransposed
// EXPECT: kernel.error
Tensor gram_untransposed(Tensor x) {
  return aten<2>("aten::mm", "", {torch::stable::detail::from(x), torch::stable::detail::from(x)});
}

}  // namespace

// one level more, so that STABLE_ERRORS_NS is replaced before STABLE_TORCH_LIBRARY pastes it
#define STABLE_ERRORS_LIBRARY(ns, m) STABLE_TORCH_LIBRARY(ns, m)
#define STABLE_ERRORS_LIBRARY_IMPL(ns, k, m) STABLE_TORCH_LIBRARY_IMPL(ns, k, m)

STABLE_ERRORS_LIBRARY(STABLE_ERRORS_NS, m) {
  m.def("gram(Tensor x) -> Tensor");
  m.def("gram_untransposed(Tensor x) -> Tensor");
}

STABLE_ERRORS_LIBRARY_IMPL(STABLE_ERRORS_NS, CompositeImplicitAutograd, m) {
  m.impl("gram", TORCH_BOX(&gram));
  m.impl("gram_untransposed", TORCH_BOX(&gram_untransposed));
}
