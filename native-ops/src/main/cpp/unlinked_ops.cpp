// An op library that does not link libtorch: its libtorch symbols stay undefined until load time.
// It loads only because the harness makes libtorch_cpu's symbols global first (TorchRuntime).
#include "kernels.h"

using namespace opcheck4j;

namespace {
Tensor twice(Tensor x) { return mul(x, scalar_like(x, 2.0)); }
}  // namespace

STABLE_TORCH_LIBRARY(unlinked_ops, m) { m.def("twice(Tensor x) -> Tensor"); }

STABLE_TORCH_LIBRARY_IMPL(unlinked_ops, CompositeExplicitAutograd, m) {
  m.impl("twice", TORCH_BOX(&twice));
}
