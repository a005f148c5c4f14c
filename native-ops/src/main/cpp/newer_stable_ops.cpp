// A stable-ABI library built for the stable ABI of 2.12 (TORCH_TARGET_VERSION=0x020c...): defining an
// op with tags calls torch_library_def_with_tags, which libtorch 2.10 does not have. The harness must
// refuse it before loading, naming the function and TORCH_TARGET_VERSION.
// EXPECT: load error (exit 2)
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/tensor.h>

using torch::stable::Tensor;

namespace {
Tensor same(Tensor x) { return x; }
}  // namespace

STABLE_TORCH_LIBRARY(newer_stable_ops, m) {
#ifdef TORCH_VERSION_2_12_0
  m.def("same(Tensor x) -> Tensor", {at::Tag::pointwise});
#else
  m.def("same(Tensor x) -> Tensor");  // headers older than 2.12 (2.10's own): nothing newer to call
#endif
}

STABLE_TORCH_LIBRARY_IMPL(newer_stable_ops, CompositeExplicitAutograd, m) { m.impl("same", TORCH_BOX(&same)); }
