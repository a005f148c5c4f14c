// A corpus of CORRECT operators written the way production custom ops are written: kernels check
// their preconditions and raise a clear error outside their domain (contiguity, dtype, rank,
// non-empty, matching sizes, square matrices); meta kernels only compute output metadata and repeat
// none of those checks. opcheck4j must report no failure on any of them, on any device, with 100
// generated inputs per op and device: at most warnings that their preconditions explain.
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace opcheck4j;

namespace {

Tensor like_meta(Tensor x) { return torch::stable::new_empty(x, x.sizes()); }

void require_contiguous(const Tensor& t, const char* op, const char* name) {
  STD_TORCH_CHECK(t.is_contiguous(), op, ": ", name, " must be contiguous");
}

void require_float32(const Tensor& t, const char* op, const char* name) {
  STD_TORCH_CHECK(t.scalar_type() == ScalarType::Float, op, ": ", name, " must be float32");
}

void require_same_sizes(const Tensor& a, const Tensor& b, const char* op, const char* an, const char* bn) {
  STD_TORCH_CHECK(sizes_of(a) == sizes_of(b), op, ": ", an, " and ", bn, " must have the same sizes");
}

// scale(x, alpha) = alpha * x. A fast path that only handles contiguous float32, and says so.
Tensor scale(Tensor x, double alpha) {
  require_contiguous(x, "scale", "x");
  require_float32(x, "scale", "x");
  Tensor out = torch::stable::new_empty(x, x.sizes());
  const float* in = static_cast<const float*>(x.data_ptr());
  float* o = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = static_cast<float>(alpha * in[i]);
  return out;
}
Tensor scale_meta(Tensor x, double alpha) { return like_meta(x); }

// add(a, b) = a + b, same sizes and dtype, contiguous.
Tensor add_kernel(Tensor a, Tensor b) {
  require_same_sizes(a, b, "add", "a", "b");
  STD_TORCH_CHECK(a.scalar_type() == b.scalar_type(), "add: a and b must have the same dtype");
  check_floating(a, "add: a");
  require_contiguous(a, "add", "a");
  require_contiguous(b, "add", "b");
  return map_new(a, [&](int64_t i) { return elem(a, i) + elem(b, i); });
}
Tensor add_meta(Tensor a, Tensor b) { return like_meta(a); }

// relu_(x): in place, returns nothing.
void relu_(Tensor x) {
  require_contiguous(x, "relu_", "x");
  check_floating(x, "relu_: x");
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (elem(x, i) < 0) put(x, i, 0.0);
  }
}
void relu__meta(Tensor x) {}

// square_out(x, *, out): out = x * x, an out= op; out must already have x's sizes and dtype.
void square_out(Tensor x, Tensor out) {
  require_same_sizes(x, out, "square_out", "x", "out");
  STD_TORCH_CHECK(x.scalar_type() == out.scalar_type(), "square_out: out must have x's dtype");
  check_floating(x, "square_out: x");
  Tensor xc = torch::stable::contiguous(x);
  Tensor result = map_new(xc, [&](int64_t i) { return elem(xc, i) * elem(xc, i); });
  torch::stable::copy_(out, result);
}
void square_out_meta(Tensor x, Tensor out) {}

// row_min_max(x) -> (min over each row, max over each row): rows must not be empty.
std::tuple<Tensor, Tensor> row_min_max(Tensor x) {
  STD_TORCH_CHECK(x.dim() == 2, "row_min_max: x must be 2-d, got ", x.dim(), "-d");
  STD_TORCH_CHECK(x.size(1) > 0, "row_min_max: x must have at least one column");
  check_floating(x, "row_min_max: x");
  Tensor xc = torch::stable::contiguous(x);
  int64_t rows = x.size(0), cols = x.size(1);
  Tensor lo = torch::stable::new_empty(x, {rows});
  Tensor hi = torch::stable::new_empty(x, {rows});
  for (int64_t i = 0; i < rows; ++i) {
    double mn = elem(xc, i * cols), mx = mn;
    for (int64_t j = 1; j < cols; ++j) {
      double v = elem(xc, i * cols + j);
      mn = std::fmin(mn, v);
      mx = std::fmax(mx, v);
    }
    put(lo, i, mn);
    put(hi, i, mx);
  }
  return {lo, hi};
}
std::tuple<Tensor, Tensor> row_min_max_meta(Tensor x) {
  return {torch::stable::new_empty(x, {x.size(0)}), torch::stable::new_empty(x, {x.size(0)})};
}

// clamp(x, lo=None, hi=None): optional bounds; lo <= hi when both are given.
Tensor clamp(Tensor x, std::optional<double> lo, std::optional<double> hi) {
  check_floating(x, "clamp: x");
  STD_TORCH_CHECK(!lo || !hi || *lo <= *hi, "clamp: lo must not exceed hi");
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) {
    double v = elem(xc, i);
    if (lo && v < *lo) v = *lo;
    if (hi && v > *hi) v = *hi;
    return v;
  });
}
Tensor clamp_meta(Tensor x, std::optional<double> lo, std::optional<double> hi) { return like_meta(x); }

// normalize(x, *, eps=1e-5) = x / (max |x| + eps): a keyword-only argument with a default.
Tensor normalize(Tensor x, double eps) {
  STD_TORCH_CHECK(eps > 0, "normalize: eps must be positive");
  check_floating(x, "normalize: x");
  Tensor xc = torch::stable::contiguous(x);
  double m = 0;
  for (int64_t i = 0; i < xc.numel(); ++i) m = std::fmax(m, std::fabs(elem(xc, i)));
  return map_new(xc, [&](int64_t i) { return elem(xc, i) / (m + eps); });
}
Tensor normalize_meta(Tensor x, double eps) { return like_meta(x); }

// stack_sum(xs) = elementwise sum of a non-empty list of same-sized tensors.
Tensor stack_sum(std::vector<Tensor> xs) {
  STD_TORCH_CHECK(!xs.empty(), "stack_sum: xs must not be empty");
  std::vector<Tensor> cs;
  for (auto& x : xs) {
    require_same_sizes(x, xs[0], "stack_sum", "xs[i]", "xs[0]");
    STD_TORCH_CHECK(x.scalar_type() == xs[0].scalar_type(), "stack_sum: all of xs must have one dtype");
    check_floating(x, "stack_sum: xs[i]");
    cs.push_back(torch::stable::contiguous(x));
  }
  return map_new(cs[0], [&](int64_t i) {
    double s = 0;
    for (auto& c : cs) s += elem(c, i);
    return s;
  });
}
Tensor stack_sum_meta(std::vector<Tensor> xs) {
  STD_TORCH_CHECK(!xs.empty(), "stack_sum: xs must not be empty");
  return like_meta(xs[0]);
}

// sum_present(xs, like): the sum of the tensors of xs that are present (None elements skipped),
// shaped like `like`.
Tensor sum_present(std::vector<std::optional<Tensor>> xs, Tensor like) {
  check_floating(like, "sum_present: like");
  std::vector<Tensor> cs;
  for (auto& x : xs) {
    if (!x) continue;
    require_same_sizes(*x, like, "sum_present", "xs[i]", "like");
    STD_TORCH_CHECK(x->scalar_type() == like.scalar_type(), "sum_present: xs[i] must have like's dtype");
    cs.push_back(torch::stable::contiguous(*x));
  }
  return map_new(like, [&](int64_t i) {
    double s = 0;
    for (auto& c : cs) s += elem(c, i);
    return s;
  });
}
Tensor sum_present_meta(std::vector<std::optional<Tensor>> xs, Tensor like) { return like_meta(like); }

// softplus(x) = log1p(exp(x)), from aten ops: meta and autograd come from the decomposition.
Tensor softplus(Tensor x) { return unary("aten::log1p", unary("aten::exp", x)); }

// linear(x, w) = x @ w^T, from aten::mm (aten checks the shapes).
Tensor linear(Tensor x, Tensor w) {
  STD_TORCH_CHECK(x.dim() == 2 && w.dim() == 2, "linear: x and w must be 2-d");
  Tensor wt = torch::stable::transpose(w, 0, 1);
  return aten<2>("aten::mm", "", {torch::stable::detail::from(x), torch::stable::detail::from(wt)});
}

// symmetrize(x) = (x + x^T) / 2: square matrices only.
Tensor symmetrize(Tensor x) {
  STD_TORCH_CHECK(x.dim() == 2 && x.size(0) == x.size(1), "symmetrize: x must be a square matrix");
  check_floating(x, "symmetrize: x");
  Tensor xc = torch::stable::contiguous(x);
  int64_t n = x.size(0);
  return map_new(xc, [&](int64_t k) {
    int64_t i = k / n, j = k % n;
    return 0.5 * (elem(xc, i * n + j) + elem(xc, j * n + i));
  });
}
Tensor symmetrize_meta(Tensor x) { return like_meta(x); }

// row_softmax(x): softmax over the last dim of a 2-d input.
Tensor row_softmax(Tensor x) {
  STD_TORCH_CHECK(x.dim() == 2, "row_softmax: x must be 2-d, got ", x.dim(), "-d");
  check_floating(x, "row_softmax: x");
  Tensor xc = torch::stable::contiguous(x);
  int64_t rows = x.size(0), cols = x.size(1);
  Tensor out = torch::stable::new_empty(x, x.sizes());
  for (int64_t i = 0; i < rows; ++i) {
    double m = -INFINITY;
    for (int64_t j = 0; j < cols; ++j) m = std::fmax(m, elem(xc, i * cols + j));
    double s = 0;
    for (int64_t j = 0; j < cols; ++j) s += std::exp(elem(xc, i * cols + j) - m);
    for (int64_t j = 0; j < cols; ++j) put(out, i * cols + j, std::exp(elem(xc, i * cols + j) - m) / s);
  }
  return out;
}
Tensor row_softmax_meta(Tensor x) { return like_meta(x); }

// cumsum_last(x): running sum along the last dim; contiguous float inputs of rank >= 1.
Tensor cumsum_last(Tensor x) {
  STD_TORCH_CHECK(x.dim() >= 1, "cumsum_last: x must have at least one dim");
  require_contiguous(x, "cumsum_last", "x");
  check_floating(x, "cumsum_last: x");
  int64_t last = x.size(x.dim() - 1);
  Tensor out = torch::stable::new_empty(x, x.sizes());
  double run = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (i % last == 0) run = 0;
    run += elem(x, i);
    put(out, i, run);
  }
  return out;
}
Tensor cumsum_last_meta(Tensor x) { return like_meta(x); }

// view_copy(x, shape): x's elements in a new tensor of `shape` (row-major); shape must hold exactly
// x's number of elements. A non-tensor argument that must agree with a tensor's sizes.
Tensor view_copy(Tensor x, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    STD_TORCH_CHECK(s >= 0, "view_copy: shape must not have negative sizes");
    n *= s;
  }
  STD_TORCH_CHECK(n == x.numel(), "view_copy: shape holds ", n, " elements, x has ", x.numel());
  check_floating(x, "view_copy: x");
  Tensor xc = torch::stable::contiguous(x);
  Tensor out = torch::stable::new_empty(x, shape);
  for (int64_t i = 0; i < n; ++i) put(out, i, elem(xc, i));
  return out;
}
Tensor view_copy_meta(Tensor x, std::vector<int64_t> shape) { return torch::stable::new_empty(x, shape); }

}  // namespace

STABLE_TORCH_LIBRARY(ordinary, m) {
  m.def("scale(Tensor x, float alpha) -> Tensor");
  m.def("add(Tensor a, Tensor b) -> Tensor");
  m.def("relu_(Tensor(a!) x) -> ()");
  m.def("square_out(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("row_min_max(Tensor x) -> (Tensor, Tensor)");
  m.def("clamp(Tensor x, float? lo=None, float? hi=None) -> Tensor");
  m.def("normalize(Tensor x, *, float eps=1e-05) -> Tensor");
  m.def("stack_sum(Tensor[] xs) -> Tensor");
  m.def("sum_present(Tensor?[] xs, Tensor like) -> Tensor");
  m.def("softplus(Tensor x) -> Tensor");
  m.def("linear(Tensor x, Tensor w) -> Tensor");
  m.def("symmetrize(Tensor x) -> Tensor");
  m.def("row_softmax(Tensor x) -> Tensor");
  m.def("cumsum_last(Tensor x) -> Tensor");
  m.def("view_copy(Tensor x, int[] shape) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(ordinary, CPU, m) {
  m.impl("scale", TORCH_BOX(&scale));
  m.impl("add", TORCH_BOX(&add_kernel));
  m.impl("relu_", TORCH_BOX(&relu_));
  m.impl("square_out", TORCH_BOX(&square_out));
  m.impl("row_min_max", TORCH_BOX(&row_min_max));
  m.impl("clamp", TORCH_BOX(&clamp));
  m.impl("normalize", TORCH_BOX(&normalize));
  m.impl("stack_sum", TORCH_BOX(&stack_sum));
  m.impl("sum_present", TORCH_BOX(&sum_present));
  m.impl("symmetrize", TORCH_BOX(&symmetrize));
  m.impl("row_softmax", TORCH_BOX(&row_softmax));
  m.impl("cumsum_last", TORCH_BOX(&cumsum_last));
  m.impl("view_copy", TORCH_BOX(&view_copy));
}

STABLE_TORCH_LIBRARY_IMPL(ordinary, Meta, m) {
  m.impl("scale", TORCH_BOX(&scale_meta));
  m.impl("add", TORCH_BOX(&add_meta));
  m.impl("relu_", TORCH_BOX(&relu__meta));
  m.impl("square_out", TORCH_BOX(&square_out_meta));
  m.impl("row_min_max", TORCH_BOX(&row_min_max_meta));
  m.impl("clamp", TORCH_BOX(&clamp_meta));
  m.impl("normalize", TORCH_BOX(&normalize_meta));
  m.impl("stack_sum", TORCH_BOX(&stack_sum_meta));
  m.impl("sum_present", TORCH_BOX(&sum_present_meta));
  m.impl("symmetrize", TORCH_BOX(&symmetrize_meta));
  m.impl("row_softmax", TORCH_BOX(&row_softmax_meta));
  m.impl("cumsum_last", TORCH_BOX(&cumsum_last_meta));
  m.impl("view_copy", TORCH_BOX(&view_copy_meta));
}

STABLE_TORCH_LIBRARY_IMPL(ordinary, CompositeImplicitAutograd, m) {
  m.impl("softplus", TORCH_BOX(&softplus));
  m.impl("linear", TORCH_BOX(&linear));
}
