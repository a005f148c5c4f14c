// Arguments whose sizes are tied (issue 43): an int argument that must equal the input's length plus one
// (the length of its exclusive prefix sums). Generation that draws the int on its own gets it right
// only when the drawn length happens to be the example's, and the kernel rejects every other try; one
// that keeps the relation the example shows reaches the op on every length. Marked as the corpus is
// (`// OP:` / `// EXPECT:`).
#include "kernels.h"

using namespace opcheck4j;

namespace {

// exclusive prefix sums: out[0] = 0, out[i] = x[0] + ... + x[i-1], for i in [0, n]
Tensor prefix_sums_with(const Tensor& x, int64_t n, const char* name) {
  STD_TORCH_CHECK(is_floating(x), name, ": x must be float32 or float64");
  STD_TORCH_CHECK(x.dim() == 1, name, ": x must be 1-d");
  STD_TORCH_CHECK(n == x.size(0) + 1, name, ": n must be x.size(0) + 1 = ", x.size(0) + 1, ", got ", n);
  Tensor xc = torch::stable::contiguous(x);
  Tensor out = torch::stable::new_empty(xc, {n});
  double acc = 0;
  put(out, 0, 0);
  for (int64_t i = 0; i < xc.size(0); ++i) {
    acc += elem(xc, i);
    put(out, i + 1, acc);
  }
  return out;
}

// OP: tied_ops::prefix_sums
Tensor prefix_sums(Tensor x, int64_t n) { return prefix_sums_with(x, n, "prefix_sums"); }

Tensor prefix_sums_meta(Tensor x, int64_t n) {
  STD_TORCH_CHECK(is_floating(x), "prefix_sums: x must be float32 or float64");
  STD_TORCH_CHECK(x.dim() == 1, "prefix_sums: x must be 1-d");
  STD_TORCH_CHECK(n == x.size(0) + 1, "prefix_sums: n must be x.size(0) + 1");
  return torch::stable::new_empty(x, {n});
}

// The Meta kernel gives the output 2 * x.size(0) - 3 elements: the example's length (x of 4, n = 5)
// only. Every try with another length whose n the kernel accepts shows it; a generator that draws n on
// its own never gets one.
// OP: tied_ops::prefix_sums_meta_example_only
// EXPECT: fake.metadata
Tensor prefix_sums_meta_example_only(Tensor x, int64_t n) { return prefix_sums_with(x, n, "prefix_sums_meta_example_only"); }

Tensor prefix_sums_meta_example_only_meta(Tensor x, int64_t n) {
  STD_TORCH_CHECK(is_floating(x), "prefix_sums_meta_example_only: x must be float32 or float64");
  STD_TORCH_CHECK(x.dim() == 1, "prefix_sums_meta_example_only: x must be 1-d");
  STD_TORCH_CHECK(n == x.size(0) + 1, "prefix_sums_meta_example_only: n must be x.size(0) + 1");
  return torch::stable::new_empty(x, {2 * x.size(0) - 3 > 0 ? 2 * x.size(0) - 3 : 0});
}

}  // namespace

STABLE_TORCH_LIBRARY(tied_ops, m) {
  m.def("prefix_sums(Tensor x, int n) -> Tensor");
  m.def("prefix_sums_meta_example_only(Tensor x, int n) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(tied_ops, CPU, m) {
  m.impl("prefix_sums", TORCH_BOX(&prefix_sums));
  m.impl("prefix_sums_meta_example_only", TORCH_BOX(&prefix_sums_meta_example_only));
}

STABLE_TORCH_LIBRARY_IMPL(tied_ops, Meta, m) {
  m.impl("prefix_sums", TORCH_BOX(&prefix_sums_meta));
  m.impl("prefix_sums_meta_example_only", TORCH_BOX(&prefix_sums_meta_example_only_meta));
}
