// Issue 40: what the stable ABI of 2.11-2.13 adds, used as production stable-ABI code uses it. Built for the
// stable ABI of 2.13 (op_library(... TARGET_VERSION 0x020d...)): a library built for 2.10 cannot take a
// Generator argument nor call torch_from_blob. Each op is a correct one (no EXPECT: every check passes or
// is skipped with its reason) or has one defect, marked with the check that must trip (`// OP:` /
// `// EXPECT:`). Real PyTorch 2.13.0 on the same source: fixtures/specs/abi213/real-pytorch.json.
#include "kernels.h"

#include <torch/csrc/stable/device.h>
#include <torch/csrc/stable/generator.h>
#include <torch/headeronly/core/enum_tag.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

using namespace opcheck4j;
using torch::stable::Generator;

namespace {

// ---- Generator arguments (2.13): an op that is random on purpose takes the generator to draw from, as
// aten's own random ops do (bernoulli, rand, normal: `*, Generator? generator=None`), and is tagged
// nondeterministic_seeded, as torchgen requires of every aten op with a Generator argument
// (torchgen/model.py).

// x * m, m ~ Bernoulli(0.5) drawn by aten::bernoulli from `generator`, or from torch's default generator
// when it is None: a caller who passes two equally seeded generators gets two equal answers.
// OP: abi213_ops::dropout
Tensor dropout(Tensor x, std::optional<Generator> generator) {
  check_floating(x, "dropout: x");
  Tensor p = torch::stable::new_empty(x, x.sizes());
  torch::stable::fill_(p, 0.5);
  Tensor mask = aten<2>("aten::bernoulli", "",
      {torch::stable::detail::from(p), torch::stable::detail::from(generator)});
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i) * elem(mask, i); });
}

// The same kernel drawing from torch's default generator whatever it is passed: the caller's seeded
// generator does not make its answer reproducible, and two calls with equally seeded generators differ.
// OP: abi213_ops::dropout_ignores_generator
// EXPECT: determinism
Tensor dropout_ignores_generator(Tensor x, std::optional<Generator> generator) {
  return dropout(x, std::nullopt);
}

Tensor dropout_meta(Tensor x, std::optional<Generator> generator) {
  check_floating(x, "dropout: x");
  return torch::stable::new_empty(x, x.sizes());
}

// ---- torch_from_blob (2.11): an output built around memory the kernel allocated itself.

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * std::max<int64_t>(sizes[d + 1], 1);
  }
  return strides;
}

// x * x, written into a buffer from std::malloc that the output owns: from_blob with a deleter that frees
// it when the tensor's storage goes.
// OP: abi213_ops::blob_square
Tensor blob_square(Tensor x) {
  check_floating(x, "blob_square: x");
  Tensor xc = torch::stable::contiguous(x);
  std::vector<int64_t> sizes = sizes_of(xc);
  int64_t n = xc.numel();
  bool dbl = xc.scalar_type() == ScalarType::Double;
  size_t bytes = static_cast<size_t>(std::max<int64_t>(n, 1)) * (dbl ? sizeof(double) : sizeof(float));
  void* data = std::malloc(bytes);
  STD_TORCH_CHECK(data != nullptr, "blob_square: cannot allocate ", bytes, " bytes");
  for (int64_t i = 0; i < n; i++) {
    double v = elem(xc, i);
    if (dbl) {
      static_cast<double*>(data)[i] = v * v;
    } else {
      static_cast<float*>(data)[i] = static_cast<float>(v * v);
    }
  }
  return torch::stable::from_blob(data, sizes, contiguous_strides(sizes), xc.device(), xc.scalar_type(),
      [](void* p) { std::free(p); });
}

// x * x * x, computed in a std::vector, viewed by from_blob (no deleter: the vector owns the memory) and
// cloned before the vector goes.
// OP: abi213_ops::blob_cube
Tensor blob_cube(Tensor x) {
  check_floating(x, "blob_cube: x");
  Tensor xc = torch::stable::contiguous(x);
  std::vector<int64_t> sizes = sizes_of(xc);
  std::vector<double> values(static_cast<size_t>(xc.numel()));
  for (size_t i = 0; i < values.size(); i++) {
    double v = elem(xc, static_cast<int64_t>(i));
    values[i] = v * v * v;
  }
  Tensor view = torch::stable::from_blob(values.data(), sizes, contiguous_strides(sizes), xc.device(),
      ScalarType::Double);
  Tensor out = torch::stable::new_empty(xc, sizes);
  torch::stable::copy_(out, view);
  return out;
}

Tensor float_meta(Tensor x) {
  check_floating(x, "x");
  return torch::stable::new_empty(x, x.sizes());
}

}  // namespace

STABLE_TORCH_LIBRARY(abi213_ops, m) {
  m.def("dropout(Tensor x, *, Generator? generator=None) -> Tensor", {at::Tag::nondeterministic_seeded});
  m.def("dropout_ignores_generator(Tensor x, *, Generator? generator=None) -> Tensor",
      {at::Tag::nondeterministic_seeded});
  m.def("blob_square(Tensor x) -> Tensor");
  m.def("blob_cube(Tensor x) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(abi213_ops, CPU, m) {
  m.impl("dropout", TORCH_BOX(&dropout));
  m.impl("dropout_ignores_generator", TORCH_BOX(&dropout_ignores_generator));
  m.impl("blob_square", TORCH_BOX(&blob_square));
  m.impl("blob_cube", TORCH_BOX(&blob_cube));
}

STABLE_TORCH_LIBRARY_IMPL(abi213_ops, Meta, m) {
  m.impl("dropout", TORCH_BOX(&dropout_meta));
  m.impl("dropout_ignores_generator", TORCH_BOX(&dropout_meta));
  m.impl("blob_square", TORCH_BOX(&float_meta));
  m.impl("blob_cube", TORCH_BOX(&float_meta));
}
