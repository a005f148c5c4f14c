// opcheck4j::undefined_grad(x): x's values, through autograd's own UndefinedGrad node, so that whatever
// gradient reaches the result, x's grad_fn is handed an undefined one. It is what
// torch.autograd.gradcheck's check_undefined_grad applies to every output at once
// (torch._C._functions.UndefinedGrad()(o)), which the JavaCPP presets do not expose:
// gradcheck.undefined-grad (dev.opcheck4j.checks.gradcheck.UndefinedGradCheck) calls it through the
// dispatcher, and says its every-output case was not checked where this operator is missing.
#include <torch/csrc/autograd/functions/basic_ops.h>
#include <torch/library.h>

namespace {
at::Tensor undefined_grad(const at::Tensor& x) {
  auto node = c10::make_intrusive<torch::autograd::UndefinedGrad>();
  return node->apply(torch::autograd::variable_list{x}).at(0);
}
}  // namespace

// CompositeImplicitAutograd: the kernel runs above autograd, where the node records the history itself.
TORCH_LIBRARY_FRAGMENT(opcheck4j, m) { m.def("undefined_grad(Tensor x) -> Tensor"); }

TORCH_LIBRARY_IMPL(opcheck4j, CompositeImplicitAutograd, m) { m.impl("undefined_grad", &undefined_grad); }
