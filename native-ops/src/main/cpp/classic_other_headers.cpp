// A classic TORCH_LIBRARY library with a torch::autograd::Function, compiled with another release's headers
// than the libtorch 2.13 the harness runs (Debian's libtorch-dev 2.14). Most classic code built so loads
// into 2.13; autograd::Function does not: 2.14's headers call torch::autograd::_wrap_outputs with a
// parameter 2.13's lacks, and fire_node_creation_hooks, which 2.13 does not have. Loaded, the first call
// of either ends the process ("symbol lookup error"); the harness must refuse the library before loading
// it, naming the symbols demangled and the likely cause.
// EXPECT: load error (exit 2)
#include <torch/torch.h>

namespace {
struct Twice : public torch::autograd::Function<Twice> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x) { return x * 2; }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    return {grads[0] * 2};
  }
};

torch::Tensor twice(const torch::Tensor& x) { return Twice::apply(x); }
}  // namespace

TORCH_LIBRARY(classic_ops, m) { m.def("twice(Tensor x) -> Tensor"); }

TORCH_LIBRARY_IMPL(classic_ops, Autograd, m) { m.impl("twice", &twice); }
TORCH_LIBRARY_IMPL(classic_ops, CPU, m) { m.impl("twice", [](const torch::Tensor& x) { return x * 2; }); }
