// A stable-ABI library that targets libtorch 2.13 (op_library(... TARGET_VERSION 0x020d000000000000)) and
// claims nothing older: its kernel returns a tensor over a buffer of its own through torch::stable::from_blob
// with a deleter, which calls torch_from_blob, a shim libtorch 2.11 added. On libtorch 2.13 it is checked;
// on 2.10 the harness refuses it before loading, per runtime: "needs libtorch >= 2.11: uses torch_from_blob".
// EXPECT: refused on 2.10 (check --runtime 2.10.0,2.13.0), every check passes on 2.13
#include "kernels.h"

#include <cstdlib>

using namespace opcheck4j;

namespace {

// doubled(x) = 2 x, in float32, written into a malloc'd buffer that the returned tensor owns.
Tensor doubled(Tensor x) {
  STD_TORCH_CHECK(x.scalar_type() == torch::headeronly::ScalarType::Float, "doubled: x must be float32");
  Tensor xc = torch::stable::contiguous(x);
  int64_t n = xc.numel();
  float* buf = static_cast<float*>(std::malloc(sizeof(float) * (n > 0 ? n : 1)));
  STD_TORCH_CHECK(buf != nullptr, "doubled: out of memory");
  const float* src = static_cast<const float*>(xc.data_ptr());
  for (int64_t i = 0; i < n; i++) buf[i] = 2.0f * src[i];
  std::vector<int64_t> sizes = sizes_of(xc);
  std::vector<int64_t> strides(sizes.size(), 1);
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 2; d >= 0; d--) {
    strides[d] = strides[d + 1] * (sizes[d + 1] > 1 ? sizes[d + 1] : 1);
  }
  return torch::stable::from_blob(buf, sizes, strides, xc.device(), torch::headeronly::ScalarType::Float,
                                  [](void* p) { std::free(p); });
}

Tensor doubled_meta(Tensor x) {
  STD_TORCH_CHECK(x.scalar_type() == torch::headeronly::ScalarType::Float, "doubled: x must be float32");
  return torch::stable::new_empty(x, x.sizes());
}

}  // namespace

STABLE_TORCH_LIBRARY(target_213_ops, m) { m.def("doubled(Tensor x) -> Tensor"); }
STABLE_TORCH_LIBRARY_IMPL(target_213_ops, CPU, m) { m.impl("doubled", TORCH_BOX(&doubled)); }
STABLE_TORCH_LIBRARY_IMPL(target_213_ops, Meta, m) { m.impl("doubled", TORCH_BOX(&doubled_meta)); }
