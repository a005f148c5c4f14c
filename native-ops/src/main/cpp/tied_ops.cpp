// Arguments whose sizes are tied (issue 43): an int argument that must equal the input's length plus one
// (the length of its exclusive prefix sums). Generation that draws the int on its own gets it right
// only when the drawn length happens to be the example's, and the kernel rejects every other try; one
// that keeps the relation the example shows reaches the op on every length. The same for a tensor whose
// length must be the sum of two others' (weighted_cat: w one weight per row of cat(a, b)), a relation that
// generation learns by probing the kernel. And ints that merely equal sizes (issue 52: prefix_norms), which
// generation must leave as they are unless the kernel's rejections show a relation. Marked as the corpus is
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

// out[i] = cat(a, b)[i] * w[i]: one weight per row of the result, so w.size(0) must be
// a.size(0) + b.size(0) (a sum of sizes, as torch.cat's out= has it)
void check_weighted_cat(const Tensor& a, const Tensor& b, const Tensor& w, const char* name) {
  STD_TORCH_CHECK(is_floating(a) && a.scalar_type() == b.scalar_type() && a.scalar_type() == w.scalar_type(), name,
                  ": a, b and w must be float32 or float64, all the same");
  STD_TORCH_CHECK(a.dim() == 1 && b.dim() == 1 && w.dim() == 1, name, ": a, b and w must be 1-d");
  STD_TORCH_CHECK(w.size(0) == a.size(0) + b.size(0), name, ": w must have a.size(0) + b.size(0) = ",
                  a.size(0) + b.size(0), " elements, got ", w.size(0));
}

Tensor weighted_cat_with(const Tensor& a, const Tensor& b, const Tensor& w, const char* name) {
  check_weighted_cat(a, b, w, name);
  Tensor ac = torch::stable::contiguous(a);
  Tensor bc = torch::stable::contiguous(b);
  Tensor wc = torch::stable::contiguous(w);
  int64_t m = ac.size(0);
  Tensor out = torch::stable::new_empty(ac, {m + bc.size(0)});
  for (int64_t i = 0; i < out.size(0); ++i) {
    put(out, i, (i < m ? elem(ac, i) : elem(bc, i - m)) * elem(wc, i));
  }
  return out;
}

// OP: tied_ops::weighted_cat
Tensor weighted_cat(Tensor a, Tensor b, Tensor w) { return weighted_cat_with(a, b, w, "weighted_cat"); }

Tensor weighted_cat_meta(Tensor a, Tensor b, Tensor w) {
  check_weighted_cat(a, b, w, "weighted_cat");
  return torch::stable::new_empty(a, {a.size(0) + b.size(0)});
}

// The Meta kernel assumes the two halves are the same length: 2 * a.size(0) rows. Its example has a and b
// of 3 (w of 6), and a try reaches the defect only when a and b differ in length and w is their sum:
// tied tries keep a and b equal, and a generator that draws w on its own gets its length right about once
// in 14 tries. One that keeps w = a + b (learned from the example) reaches it on every untied try. Real
// PyTorch 2.13.0's opcheck passes it on the example and fails test_faketensor on opcheck4j's minimal
// example, a of 0, b of 1, w of 1 ("Shapes torch.Size([1]) and torch.Size([0]) are not equal"), as on
// a of 7, b of 5, w of 12; it passes weighted_cat on all three.
// OP: tied_ops::weighted_cat_meta_equal_halves
// EXPECT: fake.metadata
Tensor weighted_cat_meta_equal_halves(Tensor a, Tensor b, Tensor w) {
  return weighted_cat_with(a, b, w, "weighted_cat_meta_equal_halves");
}

Tensor weighted_cat_meta_equal_halves_meta(Tensor a, Tensor b, Tensor w) {
  check_weighted_cat(a, b, w, "weighted_cat_meta_equal_halves");
  return torch::stable::new_empty(a, {2 * a.size(0)});
}

// Dtypes that differ between tensor arguments (issue 43): x + s, in x's dtype. x must be float32, s float32
// or float64: nothing in the schema ties s's dtype to x's, and a generator that gives tensors that share a
// dtype in the example one dtype each time (float64 for both is rejected, x being float32 only) never
// gives s a dtype of its own.
void check_shift_by(const Tensor& x, const Tensor& s, const char* name) {
  STD_TORCH_CHECK(x.scalar_type() == ScalarType::Float, name, ": x must be float32");
  STD_TORCH_CHECK(is_floating(s), name, ": s must be float32 or float64");
  STD_TORCH_CHECK(x.dim() == s.dim(), name, ": x and s must have the same sizes");
  for (int64_t d = 0; d < x.dim(); ++d) {
    STD_TORCH_CHECK(x.size(d) == s.size(d), name, ": x and s must have the same sizes");
  }
}

Tensor shift_by_meta(Tensor x, Tensor s) {
  check_shift_by(x, s, "shift_by");
  return torch::stable::new_empty(x, sizes_of(x));
}

// OP: tied_ops::shift_by
Tensor shift_by(Tensor x, Tensor s) {
  check_shift_by(x, s, "shift_by");
  Tensor xc = torch::stable::contiguous(x);
  Tensor sc = torch::stable::contiguous(s);
  Tensor out = torch::stable::new_empty(xc, sizes_of(xc));
  for (int64_t i = 0; i < out.numel(); ++i) {
    put(out, i, static_cast<float>(elem(xc, i) + static_cast<float>(elem(sc, i))));
  }
  return out;
}

// Reads s through x's dtype: right while s is float32, as in the example; a float64 s is read as the
// floats its first half's bytes make (in bounds, so only its values show it). Real PyTorch 2.13.0's opcheck
// passes it with a float64 s too (it compares no values); by hand it differs from x + s.to(x.dtype) by up
// to 3.6 there, where shift_by agrees exactly.
// OP: tied_ops::shift_by_as_x
// EXPECT: reference.values
Tensor shift_by_as_x(Tensor x, Tensor s) {
  check_shift_by(x, s, "shift_by_as_x");
  Tensor xc = torch::stable::contiguous(x);
  Tensor sc = torch::stable::contiguous(s);
  Tensor out = torch::stable::new_empty(xc, sizes_of(xc));
  const float* xs = static_cast<const float*>(xc.const_data_ptr());
  const float* ss = static_cast<const float*>(sc.const_data_ptr());
  float* o = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < out.numel(); ++i) o[i] = xs[i] + ss[i];
  return out;
}

// Ints that merely equal sizes (issue 52): out[b, k] = scale[b] * ||x[b, :k]||_norm, the norms of the first
// k elements of each row for k in [0, K) (a prefix longer than the row is the whole row), as a k-nearest-style
// op takes a norm (1 or 2) and a count K. Its example, x of [2, 3] with norm = 2 and K = 4, has ints equal to
// sizes: norm to the batch, K to x.size(1) + 1. Neither is one: the kernel accepts norm = 2 and K = 4 on any
// sizes. A generator that ties norm to the batch has the kernel reject every batch but 1 and 2, and never
// reaches a batch above the example's.
void check_prefix_norms(const Tensor& x, const Tensor& scale, int64_t norm, int64_t K, const char* name) {
  STD_TORCH_CHECK(is_floating(x) && x.scalar_type() == scale.scalar_type(), name,
                  ": x and scale must be float32 or float64, the same");
  STD_TORCH_CHECK(x.dim() == 2 && scale.dim() == 1, name, ": x must be 2-d and scale 1-d");
  STD_TORCH_CHECK(scale.size(0) == x.size(0), name, ": scale must have one element per row of x");
  STD_TORCH_CHECK(norm == 1 || norm == 2, "Support for 1 or 2 norm.");
  STD_TORCH_CHECK(K >= 1, name, ": K must be at least 1, got ", K);
}

Tensor prefix_norms_with(const Tensor& x, const Tensor& scale, int64_t norm, int64_t K, const char* name) {
  check_prefix_norms(x, scale, norm, K, name);
  Tensor xc = torch::stable::contiguous(x);
  Tensor sc = torch::stable::contiguous(scale);
  int64_t rows = xc.size(0);
  int64_t cols = xc.size(1);
  Tensor out = torch::stable::new_empty(xc, {rows, K});
  for (int64_t b = 0; b < rows; ++b) {
    double acc = 0;
    for (int64_t k = 0; k < K; ++k) {
      if (k > 0 && k <= cols) {
        double v = elem(xc, b * cols + k - 1);
        acc += norm == 1 ? std::fabs(v) : v * v;
      }
      put(out, b * K + k, elem(sc, b) * (norm == 1 ? acc : std::sqrt(acc)));
    }
  }
  return out;
}

// OP: tied_ops::prefix_norms
Tensor prefix_norms(Tensor x, Tensor scale, int64_t norm, int64_t K) {
  return prefix_norms_with(x, scale, norm, K, "prefix_norms");
}

Tensor prefix_norms_meta(Tensor x, Tensor scale, int64_t norm, int64_t K) {
  check_prefix_norms(x, scale, norm, K, "prefix_norms");
  return torch::stable::new_empty(x, {x.size(0), K});
}

// The Meta kernel's branch for batches of 4 rows or more (twice the example's 2) gives the output the dtype
// of an index tensor, int64, where the real kernel gives x's: only a try with a batch above the example's
// shows it. A generator that ties norm to the batch (norm = 2 = x.size(0) in the example) has every such try
// rejected ("Support for 1 or 2 norm.") and reaches it only on an untied try whose scale happens to match.
// Real PyTorch 2.13.0's opcheck passes it on the example and fails test_faketensor on x of [4, 3], and on
// opcheck4j's minimal example, x of [4, 0] ("Dtypes torch.float32 and torch.int64 are not equal!"); it
// passes prefix_norms on all three.
// OP: tied_ops::prefix_norms_meta_big_batch
// EXPECT: fake.metadata
Tensor prefix_norms_meta_big_batch(Tensor x, Tensor scale, int64_t norm, int64_t K) {
  return prefix_norms_with(x, scale, norm, K, "prefix_norms_meta_big_batch");
}

Tensor prefix_norms_meta_big_batch_meta(Tensor x, Tensor scale, int64_t norm, int64_t K) {
  check_prefix_norms(x, scale, norm, K, "prefix_norms_meta_big_batch");
  if (x.size(0) >= 4) {
    return torch::stable::new_empty(x, {x.size(0), K}, ScalarType::Long);
  }
  return torch::stable::new_empty(x, {x.size(0), K});
}

}  // namespace

STABLE_TORCH_LIBRARY(tied_ops, m) {
  m.def("prefix_sums(Tensor x, int n) -> Tensor");
  m.def("prefix_sums_meta_example_only(Tensor x, int n) -> Tensor");
  m.def("weighted_cat(Tensor a, Tensor b, Tensor w) -> Tensor");
  m.def("weighted_cat_meta_equal_halves(Tensor a, Tensor b, Tensor w) -> Tensor");
  m.def("shift_by(Tensor x, Tensor s) -> Tensor");
  m.def("shift_by_as_x(Tensor x, Tensor s) -> Tensor");
  m.def("prefix_norms(Tensor x, Tensor scale, int norm, int K) -> Tensor");
  m.def("prefix_norms_meta_big_batch(Tensor x, Tensor scale, int norm, int K) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(tied_ops, CPU, m) {
  m.impl("prefix_sums", TORCH_BOX(&prefix_sums));
  m.impl("prefix_sums_meta_example_only", TORCH_BOX(&prefix_sums_meta_example_only));
  m.impl("weighted_cat", TORCH_BOX(&weighted_cat));
  m.impl("weighted_cat_meta_equal_halves", TORCH_BOX(&weighted_cat_meta_equal_halves));
  m.impl("shift_by", TORCH_BOX(&shift_by));
  m.impl("shift_by_as_x", TORCH_BOX(&shift_by_as_x));
  m.impl("prefix_norms", TORCH_BOX(&prefix_norms));
  m.impl("prefix_norms_meta_big_batch", TORCH_BOX(&prefix_norms_meta_big_batch));
}

STABLE_TORCH_LIBRARY_IMPL(tied_ops, Meta, m) {
  m.impl("prefix_sums", TORCH_BOX(&prefix_sums_meta));
  m.impl("prefix_sums_meta_example_only", TORCH_BOX(&prefix_sums_meta_example_only_meta));
  m.impl("weighted_cat", TORCH_BOX(&weighted_cat_meta));
  m.impl("weighted_cat_meta_equal_halves", TORCH_BOX(&weighted_cat_meta_equal_halves_meta));
  m.impl("shift_by", TORCH_BOX(&shift_by_meta));
  m.impl("shift_by_as_x", TORCH_BOX(&shift_by_meta));
  m.impl("prefix_norms", TORCH_BOX(&prefix_norms_meta));
  m.impl("prefix_norms_meta_big_batch", TORCH_BOX(&prefix_norms_meta_big_batch_meta));
}
