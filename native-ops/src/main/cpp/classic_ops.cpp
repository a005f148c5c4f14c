// A classic TORCH_LIBRARY library, built with the runtime's headers (the torch 2.13.0 wheel's): it binds to
// libtorch 2.13's C++ ABI, so it is checked on 2.13, and on libtorch 2.10 the harness refuses it before
// loading, naming the C++ symbols 2.10 does not export (check --runtime 2.10.0,2.13.0).
// EXPECT: refused on 2.10, every check passes on 2.13
#include <torch/library.h>
#include <ATen/ATen.h>

namespace {

at::Tensor twice(const at::Tensor& x) {
  TORCH_CHECK(x.is_floating_point(), "twice: x must be a floating-point tensor, got ", x.scalar_type());
  return x * 2;
}

}  // namespace

TORCH_LIBRARY(classic_ops, m) { m.def("twice(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(classic_ops, CompositeImplicitAutograd, m) { m.impl("twice", &twice); }
