// A classic TORCH_LIBRARY library compiled with the LibTorch headers of this build, which are another
// release's than the libtorch 2.10 the harness runs (the build's headers are Debian's): its
// registration calls torch::Library::_def with that release's signature, which 2.10 does not export.
// Loaded, the static initializer's first call of it makes the dynamic loader end the process (status
// 127); the harness must refuse it before loading, naming the symbol and the mismatch.
// EXPECT: load error (exit 2)
#include <ATen/ATen.h>
#include <torch/library.h>

namespace {
at::Tensor twice(const at::Tensor& x) { return x * 2; }
}  // namespace

TORCH_LIBRARY(classic_ops, m) { m.def("twice(Tensor x) -> Tensor"); }

TORCH_LIBRARY_IMPL(classic_ops, CPU, m) { m.impl("twice", &twice); }
