// A stable-ABI library built for the stable ABI of 2.14 (TORCH_TARGET_VERSION=0x020e...): its kernel asks
// whether a tensor has storage through torch_has_storage, a shim 2.14 added and libtorch 2.13 does not have.
// The harness must refuse it before loading, naming the function and TORCH_TARGET_VERSION.
// EXPECT: load error (exit 2)
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/tensor.h>

#if TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR < 14
// 2.14's declaration (torch/csrc/stable/c/shim.h), for headers older than the target they are built for
extern "C" AOTI_TORCH_EXPORT AOTITorchError torch_has_storage(AtenTensorHandle tensor, bool* ret_has_storage);
#endif

using torch::stable::Tensor;

namespace {
Tensor same(Tensor x) {
  bool has_storage = false;
  STD_TORCH_CHECK(torch_has_storage(x.get(), &has_storage) == TORCH_SUCCESS, "torch_has_storage failed");
  STD_TORCH_CHECK(has_storage, "same: x has no storage");
  return x;
}
}  // namespace

STABLE_TORCH_LIBRARY(newer_stable_ops, m) { m.def("same(Tensor x) -> Tensor"); }

STABLE_TORCH_LIBRARY_IMPL(newer_stable_ops, CompositeExplicitAutograd, m) { m.impl("same", TORCH_BOX(&same)); }
