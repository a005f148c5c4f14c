// Memory safety (issue 31): for each class of memory error (and a bool read as a byte), an op with the defect, marked with the one
// check that must trip (`// OP:` / `// EXPECT:`), and its good twin, which must pass everything. Each
// defect is invisible in the op's values: the bytes read out of bounds are loaded but never used, those
// written out of bounds get 0 added (their bytes stay as they were, so the heap outside the guard
// pages is never damaged), and the element left unwritten reads as whatever the allocator handed out. torch.library.opcheck 2.14.1
// passes all of them (fixtures/specs/memory/real-opcheck.json).
#include "kernels.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace opcheck4j;

namespace {

// One float32/float64 kernel body over a contiguous x and a new output of x's shape:
// body(const T* x, T* y, int64_t n).
template <class F>
Tensor elementwise(const Tensor& x, const char* name, F body) {
  check_floating(x, name);
  Tensor xc = torch::stable::contiguous(x);
  Tensor out = torch::stable::new_empty(xc, xc.sizes());
  if (xc.scalar_type() == ScalarType::Double) {
    body(static_cast<const double*>(xc.const_data_ptr()), static_cast<double*>(out.data_ptr()), xc.numel());
  } else {
    body(static_cast<const float*>(xc.const_data_ptr()), static_cast<float*>(out.data_ptr()), xc.numel());
  }
  return out;
}

Tensor elementwise_meta(Tensor x) {
  check_floating(x, "memory_ops: x");
  return torch::stable::new_empty(x, x.sizes());
}

// ---- Reading one element past the end. half_shift(x)[i] = (x[i] + x[i+1]) / 2 over the flattened
// elements, the last one kept as it is.

// OP: memory_ops::half_shift
Tensor half_shift(Tensor x) {
  return elementwise(x, "half_shift: x", [](const auto* in, auto* out, int64_t n) {
    for (int64_t i = 0; i + 1 < n; ++i) out[i] = (in[i] + in[i + 1]) / 2;
    if (n > 0) out[n - 1] = in[n - 1];
  });
}

// The pair (x[i], x[i+1]) is read with one two-element load, the last element's too: its second half
// lies past the end of x. The value is never used, so every output is right.
// OP: memory_ops::half_shift_overread
// EXPECT: memory.bounds
Tensor half_shift_overread(Tensor x) {
  return elementwise(x, "half_shift_overread: x", [](const auto* in, auto* out, int64_t n) {
    using T = std::remove_cv_t<std::remove_reference_t<decltype(*in)>>;
    for (int64_t i = 0; i < n; ++i) {
      T pair[2];
      std::memcpy(pair, in + i, sizeof pair);
      out[i] = i + 1 < n ? (pair[0] + pair[1]) / 2 : pair[0];
    }
  });
}

// ---- Reading one element before the start. half_shift_back(x)[i] = (x[i-1] + x[i]) / 2, the first
// element kept as it is.

// OP: memory_ops::half_shift_back
Tensor half_shift_back(Tensor x) {
  return elementwise(x, "half_shift_back: x", [](const auto* in, auto* out, int64_t n) {
    if (n > 0) out[0] = in[0];
    for (int64_t i = 1; i < n; ++i) out[i] = (in[i - 1] + in[i]) / 2;
  });
}

// The pair (x[i-1], x[i]) is read with one load, the first element's too: x[-1] lies before the start.
// The first element gives its left neighbour the weight 0, without a branch.
// OP: memory_ops::half_shift_back_overread
// EXPECT: memory.bounds
Tensor half_shift_back_overread(Tensor x) {
  return elementwise(x, "half_shift_back_overread: x", [](const auto* in, auto* out, int64_t n) {
    using T = std::remove_cv_t<std::remove_reference_t<decltype(*in)>>;
    for (int64_t i = 0; i < n; ++i) {
      T pair[2];
      std::memcpy(pair, in + i - 1, sizeof pair);
      T w = static_cast<T>(i > 0) / 2;
      out[i] = pair[1] + w * (pair[0] - pair[1]);
    }
  });
}

// ---- An output element never written. double_pairs(x) = 2x, computed two elements at a time.

// OP: memory_ops::double_pairs
Tensor double_pairs(Tensor x) {
  return elementwise(x, "double_pairs: x", [](const auto* in, auto* out, int64_t n) {
    int64_t i = 0;
    for (; i + 1 < n; i += 2) {
      out[i] = 2 * in[i];
      out[i + 1] = 2 * in[i + 1];
    }
    if (i < n) out[i] = 2 * in[i];  // the odd element left over
  });
}

// The same loop without its tail: on an odd number of elements the last output element is never
// written, and holds whatever the allocator left there. Every example has an even size.
// OP: memory_ops::double_pairs_no_tail
// EXPECT: memory.uninitialized
Tensor double_pairs_no_tail(Tensor x) {
  return elementwise(x, "double_pairs_no_tail: x", [](const auto* in, auto* out, int64_t n) {
    for (int64_t i = 0; i + 1 < n; i += 2) {
      out[i] = 2 * in[i];
      out[i + 1] = 2 * in[i + 1];
    }
  });
}

// The same loop, without its tail but with a fast path for one element (a 0-d or one-element x, as
// a scalar is passed): sizes 0, 1 and every even size are right, so are the edge cases generation tries
// first; 3, 5, 7, ... leave the last output element unwritten. The smallest input that shows it has 3
// elements, and only shrinking a larger generated one finds it.
// OP: memory_ops::double_pairs_scalar_path
// EXPECT: memory.uninitialized
Tensor double_pairs_scalar_path(Tensor x) {
  return elementwise(x, "double_pairs_scalar_path: x", [](const auto* in, auto* out, int64_t n) {
    if (n == 1) {
      out[0] = 2 * in[0];
      return;
    }
    for (int64_t i = 0; i + 1 < n; i += 2) {
      out[i] = 2 * in[i];
      out[i + 1] = 2 * in[i + 1];
    }
  });
}

// ---- Writing one element past the end, and one before the start. splat_add_(grid!, values) adds
// values into grid by linear interpolation, the adjoint of sampling grid linearly (how the backward
// of linear interpolation accumulates): values[i] lies at position p = i * (m - 1) / (n - 1) of grid's
// m points and goes to the two points around p, each weighted by its closeness. At a position that is
// exactly a grid point the second point's weight is 0.

// body(T* g, int64_t m, const T* v, int64_t n) over contiguous copies; grid gets the result back.
template <class F>
void splat_add_with(Tensor& grid, const Tensor& values, const char* name, F body) {
  check_floating(grid, name);
  STD_TORCH_CHECK(values.scalar_type() == grid.scalar_type(), name, ": values must have grid's dtype");
  Tensor g = torch::stable::contiguous(grid);
  Tensor v = torch::stable::contiguous(values);
  int64_t m = g.numel();
  int64_t n = v.numel();
  if (m > 0 && n > 0) {
    if (g.scalar_type() == ScalarType::Double) {
      body(static_cast<double*>(g.data_ptr()), m, static_cast<const double*>(v.const_data_ptr()), n);
    } else {
      body(static_cast<float*>(g.data_ptr()), m, static_cast<const float*>(v.const_data_ptr()), n);
    }
  }
  if (!grid.is_contiguous()) torch::stable::copy_(grid, g);
}

void splat_meta(Tensor grid, Tensor values) {
  check_floating(grid, "memory_ops: grid");
  STD_TORCH_CHECK(values.scalar_type() == grid.scalar_type(), "memory_ops: values must have grid's dtype");
}

// grid position of values[i], exact at both ends
inline double position(int64_t i, int64_t m, int64_t n) {
  return n > 1 ? static_cast<double>(i * (m - 1)) / static_cast<double>(n - 1) : 0.0;
}

// Adds each value to the grid point j next to its position (rounded down, or up) with the weight
// 1 - f, and calls neighbour(g, m, k, w) for the weight f of the point k on the other side.
template <bool RoundUp, class T, class N>
void splat(T* g, int64_t m, const T* v, int64_t n, N neighbour) {
  for (int64_t i = 0; i < n; ++i) {
    double p = position(i, m, n);
    int64_t j = static_cast<int64_t>(RoundUp ? std::ceil(p) : std::floor(p));
    double f = RoundUp ? j - p : p - j;
    g[j] += (1 - f) * v[i];
    neighbour(g, m, RoundUp ? j - 1 : j + 1, f * v[i]);
  }
}

// The point at or below p, and the one above it when there is one.
// OP: memory_ops::splat_add_
void splat_add_(Tensor grid, Tensor values) {
  splat_add_with(grid, values, "splat_add_: grid", [](auto* g, int64_t m, const auto* v, int64_t n) {
    splat<false>(g, m, v, n, [](auto* g, int64_t m, int64_t k, double w) {
      if (k < m) g[k] += w;
    });
  });
}

// The same without the bound on the point above: the last value lies exactly on the last point, and
// its weight 0 is added to grid[m], one element past the end. Adding 0 leaves those bytes as they
// were, so every value is right and nothing visibly breaks; a write it still is.
// OP: memory_ops::splat_add_unbounded_
// EXPECT: memory.bounds
void splat_add_unbounded_(Tensor grid, Tensor values) {
  splat_add_with(grid, values, "splat_add_unbounded_: grid", [](auto* g, int64_t m, const auto* v, int64_t n) {
    splat<false>(g, m, v, n, [](auto* g, int64_t, int64_t k, double w) { g[k] += w; });
  });
}

// The point at or above p, and the one below it when there is one.
// OP: memory_ops::splat_add_down_
void splat_add_down_(Tensor grid, Tensor values) {
  splat_add_with(grid, values, "splat_add_down_: grid", [](auto* g, int64_t m, const auto* v, int64_t n) {
    splat<true>(g, m, v, n, [](auto* g, int64_t, int64_t k, double w) {
      if (k >= 0) g[k] += w;
    });
  });
}

// The same without the bound on the point below: the first value lies exactly on point 0, and its
// weight 0 is added to grid[-1], one element before the start.
// OP: memory_ops::splat_add_down_unbounded_
// EXPECT: memory.bounds
void splat_add_down_unbounded_(Tensor grid, Tensor values) {
  splat_add_with(grid, values, "splat_add_down_unbounded_: grid", [](auto* g, int64_t m, const auto* v, int64_t n) {
    splat<true>(g, m, v, n, [](auto* g, int64_t, int64_t k, double w) { g[k] += w; });
  });
}

// ---- Writing around an output the kernel allocates itself (issue 43). splat(values, m) = the values
// splatted linearly onto a new grid of m points (the functional splat_add_ on zeros); the kernel
// allocates the grid, so only a guard page placed by the guarded allocator bounds it.

// body(T* g, int64_t m, const T* v, int64_t n) over a new grid of m zeros.
template <class F>
Tensor splat_new_with(const Tensor& values, int64_t m, const char* name, F body) {
  check_floating(values, name);
  STD_TORCH_CHECK(m >= 1, name, ": m must be at least 1, got ", m);
  Tensor v = torch::stable::contiguous(values);
  Tensor g = torch::stable::new_empty(v, {m});
  int64_t n = v.numel();
  if (v.scalar_type() == ScalarType::Double) {
    auto* gp = static_cast<double*>(g.data_ptr());
    for (int64_t j = 0; j < m; ++j) gp[j] = 0;
    if (n > 0) body(gp, m, static_cast<const double*>(v.const_data_ptr()), n);
  } else {
    auto* gp = static_cast<float*>(g.data_ptr());
    for (int64_t j = 0; j < m; ++j) gp[j] = 0;
    if (n > 0) body(gp, m, static_cast<const float*>(v.const_data_ptr()), n);
  }
  return g;
}

Tensor splat_new_meta(Tensor values, int64_t m) {
  check_floating(values, "memory_ops: values");
  STD_TORCH_CHECK(m >= 1, "memory_ops: m must be at least 1, got ", m);
  return torch::stable::new_empty(values, {m});
}

// OP: memory_ops::splat
Tensor splat_new(Tensor values, int64_t m) {
  return splat_new_with(values, m, "splat: values", [](auto* g, int64_t m, const auto* v, int64_t n) {
    splat<false>(g, m, v, n, [](auto* g, int64_t m, int64_t k, double w) {
      if (k < m) g[k] += w;
    });
  });
}

// splat_add_unbounded_'s missing bound, on the grid it allocated: the last value's weight 0 is added to
// g[m], one element past the end of output 0. The bytes there stay as they were (x + 0 == x), so
// neither a value nor the canary around the output changes: only the guard page after it sees the
// access, when the output ends at it (its size a multiple of 64 bytes, as the example's 16 floats).
// OP: memory_ops::splat_unbounded
// EXPECT: memory.bounds
Tensor splat_unbounded(Tensor values, int64_t m) {
  return splat_new_with(values, m, "splat_unbounded: values", [](auto* g, int64_t m, const auto* v, int64_t n) {
    splat<false>(g, m, v, n, [](auto* g, int64_t, int64_t k, double w) { g[k] += w; });
  });
}

// OP: memory_ops::splat_down
Tensor splat_down(Tensor values, int64_t m) {
  return splat_new_with(values, m, "splat_down: values", [](auto* g, int64_t m, const auto* v, int64_t n) {
    splat<true>(g, m, v, n, [](auto* g, int64_t, int64_t k, double w) {
      if (k >= 0) g[k] += w;
    });
  });
}

// The first value's weight 0 is added to g[-1], one element before the start of output 0.
// OP: memory_ops::splat_down_unbounded
// EXPECT: memory.bounds
Tensor splat_down_unbounded(Tensor values, int64_t m) {
  return splat_new_with(values, m, "splat_down_unbounded: values", [](auto* g, int64_t m, const auto* v, int64_t n) {
    splat<true>(g, m, v, n, [](auto* g, int64_t, int64_t k, double w) { g[k] += w; });
  });
}

// A running mean over windows of w elements through a scratch row the kernel allocates (a temporary):
// scratch[i] = x[0] + ... + x[i-1], and y[i] = (scratch[i + w] - scratch[i]) / w.
// body(const T* x, T* scratch, T* y, int64_t n, int64_t w).
template <class F>
Tensor window_mean_with(const Tensor& x, int64_t w, const char* name, F body) {
  check_floating(x, name);
  STD_TORCH_CHECK(x.dim() == 1, name, " must be 1-d");
  STD_TORCH_CHECK(w >= 1 && w <= x.size(0), name, ": w must be in [1, ", x.size(0), "], got ", w);
  Tensor xc = torch::stable::contiguous(x);
  int64_t n = xc.size(0);
  Tensor y = torch::stable::new_empty(xc, {n - w + 1});
  Tensor scratch = torch::stable::new_empty(xc, {n + 1});
  if (xc.scalar_type() == ScalarType::Double) {
    body(static_cast<const double*>(xc.const_data_ptr()), static_cast<double*>(scratch.data_ptr()),
        static_cast<double*>(y.data_ptr()), n, w);
  } else {
    body(static_cast<const float*>(xc.const_data_ptr()), static_cast<float*>(scratch.data_ptr()),
        static_cast<float*>(y.data_ptr()), n, w);
  }
  return y;
}

Tensor window_mean_meta(Tensor x, int64_t w) {
  check_floating(x, "memory_ops: x");
  STD_TORCH_CHECK(x.dim() == 1, "memory_ops: x must be 1-d");
  STD_TORCH_CHECK(w >= 1 && w <= x.size(0), "memory_ops: w out of range");
  return torch::stable::new_empty(x, {x.size(0) - w + 1});
}

// OP: memory_ops::window_mean
Tensor window_mean(Tensor x, int64_t w) {
  return window_mean_with(x, w, "window_mean: x", [](const auto* x, auto* s, auto* y, int64_t n, int64_t w) {
    s[0] = 0;
    for (int64_t i = 0; i < n; ++i) s[i + 1] = s[i] + x[i];
    for (int64_t i = 0; i + w <= n; ++i) y[i] = (s[i + w] - s[i]) / w;
  });
}

// Each window's end is read with its successor's in one two-element load (the successor's mean is written
// ahead, the same value the next step writes again), the last window's too: its second half,
// scratch[n + 1], lies one element past the end of the scratch row. It is never used, so every value is
// right; the read lands on the guard page after that temporary.
// OP: memory_ops::window_mean_overread
// EXPECT: memory.bounds
Tensor window_mean_overread(Tensor x, int64_t w) {
  return window_mean_with(x, w, "window_mean_overread: x", [](const auto* x, auto* s, auto* y, int64_t n, int64_t w) {
    s[0] = 0;
    for (int64_t i = 0; i < n; ++i) s[i + 1] = s[i] + x[i];
    using T = std::remove_cv_t<std::remove_reference_t<decltype(*x)>>;
    for (int64_t i = 0; i + w <= n; ++i) {
      T pair[2];
      std::memcpy(pair, s + i + w, sizeof pair);
      y[i] = (pair[0] - s[i]) / w;
      if (i + 1 + w <= n) y[i + 1] = (pair[1] - s[i + 1]) / w;
    }
  });
}

// The same running mean, the row marked with a sentinel one element before it (issue 52): s[-1] = 1, a leading
// slot the allocation does not have. On libtorch's own allocator that element is the top of malloc's header for
// the row (its chunk's size), so freeing the row aborts the plain call ("free(): invalid size"): a crash that
// names nothing. Under memory.bounds' guarded allocator the element is canary, and the check names the
// temporary and the side. Every value is right.
// OP: memory_ops::window_mean_sentinel
// EXPECT: kernel.crash, memory.bounds
Tensor window_mean_sentinel(Tensor x, int64_t w) {
  return window_mean_with(x, w, "window_mean_sentinel: x", [](const auto* x, auto* s, auto* y, int64_t n, int64_t w) {
    using T = std::remove_cv_t<std::remove_reference_t<decltype(*x)>>;
    volatile T* before = s - 1;
    *before = T(1);
    s[0] = 0;
    for (int64_t i = 0; i < n; ++i) s[i + 1] = s[i] + x[i];
    for (int64_t i = 0; i + w <= n; ++i) y[i] = (s[i + w] - s[i]) / w;
  });
}

// The same, the sentinel written only for an odd number of elements: the example's 16 are right, and a generated
// odd size crashes the plain call. Its kernel.crash says what memory.bounds sees on the crash's minimal example
// under its guards (fact diagnosis): the temporary and the side.
// OP: memory_ops::window_mean_sentinel_odd
// EXPECT: kernel.crash
Tensor window_mean_sentinel_odd(Tensor x, int64_t w) {
  return window_mean_with(x, w, "window_mean_sentinel_odd: x", [](const auto* x, auto* s, auto* y, int64_t n,
      int64_t w) {
    using T = std::remove_cv_t<std::remove_reference_t<decltype(*x)>>;
    if (n % 2 == 1) {
      volatile T* before = s - 1;
      *before = T(1);
    }
    s[0] = 0;
    for (int64_t i = 0; i < n; ++i) s[i + 1] = s[i] + x[i];
    for (int64_t i = 0; i + w <= n; ++i) y[i] = (s[i + w] - s[i]) / w;
  });
}

// The same running mean through a scratch row freed before the kernel is done with it (issue 54): after the
// row is freed, the kernel reads its last element (the total) once more, and never uses what it read. On
// libtorch's own allocator the read sees whatever malloc left there and every value is right; the guarded
// allocator makes a freed temporary's pages inaccessible, and memory.bounds names the use after free.
// OP: memory_ops::window_mean_freed
// EXPECT: memory.bounds
Tensor window_mean_freed(Tensor x, int64_t w) {
  check_floating(x, "window_mean_freed: x");
  STD_TORCH_CHECK(x.dim() == 1, "window_mean_freed: x must be 1-d");
  STD_TORCH_CHECK(w >= 1 && w <= x.size(0), "window_mean_freed: w must be in [1, ", x.size(0), "], got ", w);
  Tensor xc = torch::stable::contiguous(x);
  int64_t n = xc.size(0);
  Tensor y = torch::stable::new_empty(xc, {n - w + 1});
  const volatile char* total = nullptr;
  {
    Tensor scratch = torch::stable::new_empty(xc, {n + 1});
    auto body = [&](const auto* x, auto* s, auto* y) {
      s[0] = 0;
      for (int64_t i = 0; i < n; ++i) s[i + 1] = s[i] + x[i];
      for (int64_t i = 0; i + w <= n; ++i) y[i] = (s[i + w] - s[i]) / w;
      total = reinterpret_cast<const volatile char*>(s + n);
    };
    if (xc.scalar_type() == ScalarType::Double) {
      body(static_cast<const double*>(xc.const_data_ptr()), static_cast<double*>(scratch.data_ptr()),
          static_cast<double*>(y.data_ptr()));
    } else {
      body(static_cast<const float*>(xc.const_data_ptr()), static_cast<float*>(scratch.data_ptr()),
          static_cast<float*>(y.data_ptr()));
    }
  }
  (void)*total;  // the scratch row was freed at the end of the block above
  return y;
}

// ---- Reading past the end of one tensor of a list. cat_flat(xs) = the elements of every tensor of
// xs, flattened, one tensor after another.

// copy(const T* x, T* out, int64_t n) for each tensor, into its place in the output
// The number of elements of the output, after checking xs.
int64_t cat_flat_size(const std::vector<Tensor>& xs, const char* name) {
  STD_TORCH_CHECK(!xs.empty(), name, ": xs must not be empty");
  int64_t total = 0;
  for (const auto& x : xs) {
    check_floating(x, name);
    STD_TORCH_CHECK(x.scalar_type() == xs[0].scalar_type(), name, ": every tensor of xs must have xs[0]'s dtype");
    int64_t n = 1;  // numel() raises on a meta tensor with symbolic sizes (torch.compile, dynamic); sizes() does not
    for (int64_t d : x.sizes()) n *= d;
    total += n;
  }
  return total;
}

template <class F>
Tensor cat_flat_with(const std::vector<Tensor>& xs, const char* name, F copy) {
  int64_t total = cat_flat_size(xs, name);
  Tensor out = torch::stable::new_empty(xs[0], {total});
  int64_t at = 0;
  for (const auto& x : xs) {
    Tensor c = torch::stable::contiguous(x);
    if (c.scalar_type() == ScalarType::Double) {
      copy(static_cast<const double*>(c.const_data_ptr()), static_cast<double*>(out.data_ptr()) + at, c.numel());
    } else {
      copy(static_cast<const float*>(c.const_data_ptr()), static_cast<float*>(out.data_ptr()) + at, c.numel());
    }
    at += c.numel();
  }
  return out;
}

Tensor cat_flat_meta(std::vector<Tensor> xs) {
  int64_t total = cat_flat_size(xs, "cat_flat: xs");
  return torch::stable::new_empty(xs[0], {total});
}

// OP: memory_ops::cat_flat
Tensor cat_flat(std::vector<Tensor> xs) {
  return cat_flat_with(xs, "cat_flat: xs", [](const auto* x, auto* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = x[i];
  });
}

// Copies two elements at a time, with one two-element load each: for a tensor of odd size the last
// load reads one element past its end (only the first half of it is stored).
// OP: memory_ops::cat_flat_pairs
// EXPECT: memory.bounds
Tensor cat_flat_pairs(std::vector<Tensor> xs) {
  return cat_flat_with(xs, "cat_flat_pairs: xs", [](const auto* x, auto* out, int64_t n) {
    using T = std::remove_cv_t<std::remove_reference_t<decltype(*x)>>;
    for (int64_t i = 0; i < n; i += 2) {
      T pair[2];
      std::memcpy(pair, x + i, sizeof pair);
      out[i] = pair[0];
      if (i + 1 < n) out[i + 1] = pair[1];
    }
  });
}

// ---- Writing an input and restoring it. lower_median(x) = the lower median of x's elements
// (element (n - 1) / 2 in sorted order), as a 0-d tensor.

// select(T* scratch_or_x, int64_t n) -> T, given x's contiguous elements.
void check_median_input(const Tensor& x, const char* name) {
  check_floating(x, name);
  bool empty = false;  // numel() raises on a meta tensor with symbolic sizes, sizes() does not
  for (int64_t d : x.sizes()) empty = empty || d == 0;
  STD_TORCH_CHECK(!empty, name, " must have elements");
}

// Writes: select gets a writable pointer to x's elements (else a const one, which leaves a lazily cloned
// x lazy: memory.cow-input).
template <bool Writes, class F>
Tensor lower_median_with(const Tensor& x, const char* name, F select) {
  check_median_input(x, name);
  Tensor xc = torch::stable::contiguous(x);
  Tensor out = torch::stable::new_empty(xc, {});
  if constexpr (Writes) {
    if (xc.scalar_type() == ScalarType::Double) {
      *static_cast<double*>(out.data_ptr()) = select(static_cast<double*>(xc.mutable_data_ptr()), xc.numel());
    } else {
      *static_cast<float*>(out.data_ptr()) = select(static_cast<float*>(xc.mutable_data_ptr()), xc.numel());
    }
  } else {
    if (xc.scalar_type() == ScalarType::Double) {
      *static_cast<double*>(out.data_ptr()) = select(static_cast<const double*>(xc.const_data_ptr()), xc.numel());
    } else {
      *static_cast<float*>(out.data_ptr()) = select(static_cast<const float*>(xc.const_data_ptr()), xc.numel());
    }
  }
  return out;
}

Tensor lower_median_meta(Tensor x) {
  check_median_input(x, "lower_median: x");
  return torch::stable::new_empty(x, {});
}

// Selects in a scratch copy.
// OP: memory_ops::lower_median
Tensor lower_median(Tensor x) {
  return lower_median_with<false>(x, "lower_median: x", [](const auto* data, int64_t n) {
    std::vector<std::remove_cv_t<std::remove_reference_t<decltype(*data)>>> scratch(data, data + n);
    std::nth_element(scratch.begin(), scratch.begin() + (n - 1) / 2, scratch.end());
    return scratch[(n - 1) / 2];
  });
}

// Selects in place, in x's own storage, to save an allocation, and puts x back from a copy afterwards:
// x holds its values again when the kernel returns, so comparing x before and after sees nothing, but
// x was written (a tensor in read-only memory faults; another thread reading x meanwhile sees it
// reordered).
// The write also materializes a lazily cloned x.
// OP: memory_ops::lower_median_in_place
// EXPECT: memory.readonly-input, memory.cow-input
Tensor lower_median_in_place(Tensor x) {
  return lower_median_with<true>(x, "lower_median_in_place: x", [](auto* data, int64_t n) {
    std::vector<std::remove_reference_t<decltype(*data)>> saved(data, data + n);
    std::nth_element(data, data + (n - 1) / 2, data + n);
    auto m = data[(n - 1) / 2];
    std::copy(saved.begin(), saved.end(), data);
    return m;
  });
}

// ---- A bool read as a number. count_true(mask) = the number of true elements, as an int64 0-d tensor.
// PyTorch reads any nonzero byte of bool storage as true.

Tensor count_true_with(const Tensor& mask, const char* name, int64_t (*count)(const uint8_t*, int64_t)) {
  STD_TORCH_CHECK(mask.scalar_type() == ScalarType::Bool, name, ": mask must be bool");
  Tensor mc = torch::stable::contiguous(mask);
  Tensor out = torch::stable::new_empty(mc, {}, ScalarType::Long);
  *static_cast<int64_t*>(out.data_ptr()) = count(static_cast<const uint8_t*>(mc.const_data_ptr()), mc.numel());
  return out;
}

// OP: memory_ops::count_true
Tensor count_true(Tensor mask) {
  return count_true_with(mask, "count_true", [](const uint8_t* m, int64_t n) {
    int64_t c = 0;
    for (int64_t i = 0; i < n; ++i) c += m[i] != 0;
    return c;
  });
}

// Adds the bytes: right for 0/1 storage, wrong for a bool whose true is stored as another nonzero byte.
// OP: memory_ops::count_true_bytes
// EXPECT: memory.bool-bytes
Tensor count_true_bytes(Tensor mask) {
  return count_true_with(mask, "count_true_bytes", [](const uint8_t* m, int64_t n) {
    int64_t c = 0;
    for (int64_t i = 0; i < n; ++i) c += m[i];
    return c;
  });
}

Tensor count_true_meta(Tensor mask) {
  STD_TORCH_CHECK(mask.scalar_type() == ScalarType::Bool, "count_true: mask must be bool");
  return torch::stable::new_empty(mask, {}, ScalarType::Long);
}

// Tensor[] outputs (issue 43): x split into its halves, x[:h] and x[h:] with h = x.size(0) / 2, each copied
// into a tensor the kernel allocates, returned as a list. body(const T* x, T* lo, T* hi, int64_t h, int64_t n).
template <class F>
std::vector<Tensor> halves_with(const Tensor& x, const char* name, F body) {
  check_floating(x, name);
  STD_TORCH_CHECK(x.dim() == 1, name, " must be 1-d");
  Tensor xc = torch::stable::contiguous(x);
  int64_t n = xc.size(0);
  int64_t h = n / 2;
  Tensor lo = torch::stable::new_empty(xc, {h});
  Tensor hi = torch::stable::new_empty(xc, {n - h});
  if (xc.scalar_type() == ScalarType::Double) {
    body(static_cast<const double*>(xc.const_data_ptr()), static_cast<double*>(lo.data_ptr()),
        static_cast<double*>(hi.data_ptr()), h, n);
  } else {
    body(static_cast<const float*>(xc.const_data_ptr()), static_cast<float*>(lo.data_ptr()),
        static_cast<float*>(hi.data_ptr()), h, n);
  }
  return {lo, hi};
}

std::vector<Tensor> halves_meta(Tensor x) {
  check_floating(x, "memory_ops: x");
  STD_TORCH_CHECK(x.dim() == 1, "memory_ops: x must be 1-d");
  int64_t h = x.size(0) / 2;
  return {torch::stable::new_empty(x, {h}), torch::stable::new_empty(x, {x.size(0) - h})};
}

// OP: memory_ops::halves
std::vector<Tensor> halves(Tensor x) {
  return halves_with(x, "halves: x", [](const auto* x, auto* lo, auto* hi, int64_t h, int64_t n) {
    for (int64_t i = 0; i < h; ++i) lo[i] = x[i];
    for (int64_t i = h; i < n; ++i) hi[i - h] = x[i];
  });
}

// The second half's copy loop runs one step too far and stores hi[n - h] back as it read it: one element
// past the end of the list's second tensor. Its bytes stay as they were, so no value and no canary
// changes: only the guard page after that output sees it, when it ends there (the example's 16 floats).
// OP: memory_ops::halves_unbounded
// EXPECT: memory.bounds
std::vector<Tensor> halves_unbounded(Tensor x) {
  return halves_with(x, "halves_unbounded: x", [](const auto* x, auto* lo, auto* hi, int64_t h, int64_t n) {
    if (n == 0) return;  // nothing to copy (and no storage to touch)
    for (int64_t i = 0; i < h; ++i) lo[i] = x[i];
    for (int64_t i = h; i <= n; ++i) {
      volatile std::remove_pointer_t<decltype(hi)>* at = hi + (i - h);
      *at = i < n ? x[i] : *at;
    }
  });
}

}  // namespace

STABLE_TORCH_LIBRARY(memory_ops, m) {
  m.def("half_shift(Tensor x) -> Tensor");
  m.def("half_shift_overread(Tensor x) -> Tensor");
  m.def("half_shift_back(Tensor x) -> Tensor");
  m.def("half_shift_back_overread(Tensor x) -> Tensor");
  m.def("double_pairs(Tensor x) -> Tensor");
  m.def("double_pairs_no_tail(Tensor x) -> Tensor");
  m.def("double_pairs_scalar_path(Tensor x) -> Tensor");
  m.def("count_true(Tensor mask) -> Tensor");
  m.def("count_true_bytes(Tensor mask) -> Tensor");
  m.def("cat_flat(Tensor[] xs) -> Tensor");
  m.def("cat_flat_pairs(Tensor[] xs) -> Tensor");
  m.def("lower_median(Tensor x) -> Tensor");
  m.def("lower_median_in_place(Tensor x) -> Tensor");
  m.def("splat_add_(Tensor(a!) grid, Tensor values) -> ()");
  m.def("splat_add_unbounded_(Tensor(a!) grid, Tensor values) -> ()");
  m.def("splat_add_down_(Tensor(a!) grid, Tensor values) -> ()");
  m.def("splat_add_down_unbounded_(Tensor(a!) grid, Tensor values) -> ()");
  m.def("splat(Tensor values, int m) -> Tensor");
  m.def("splat_unbounded(Tensor values, int m) -> Tensor");
  m.def("splat_down(Tensor values, int m) -> Tensor");
  m.def("splat_down_unbounded(Tensor values, int m) -> Tensor");
  m.def("window_mean(Tensor x, int w) -> Tensor");
  m.def("window_mean_overread(Tensor x, int w) -> Tensor");
  m.def("window_mean_sentinel(Tensor x, int w) -> Tensor");
  m.def("window_mean_sentinel_odd(Tensor x, int w) -> Tensor");
  m.def("window_mean_freed(Tensor x, int w) -> Tensor");
  m.def("halves(Tensor x) -> Tensor[]");
  m.def("halves_unbounded(Tensor x) -> Tensor[]");
}

STABLE_TORCH_LIBRARY_IMPL(memory_ops, CPU, m) {
  m.impl("half_shift", TORCH_BOX(&half_shift));
  m.impl("half_shift_overread", TORCH_BOX(&half_shift_overread));
  m.impl("half_shift_back", TORCH_BOX(&half_shift_back));
  m.impl("half_shift_back_overread", TORCH_BOX(&half_shift_back_overread));
  m.impl("double_pairs", TORCH_BOX(&double_pairs));
  m.impl("double_pairs_no_tail", TORCH_BOX(&double_pairs_no_tail));
  m.impl("double_pairs_scalar_path", TORCH_BOX(&double_pairs_scalar_path));
  m.impl("count_true", TORCH_BOX(&count_true));
  m.impl("count_true_bytes", TORCH_BOX(&count_true_bytes));
  m.impl("cat_flat", TORCH_BOX(&cat_flat));
  m.impl("cat_flat_pairs", TORCH_BOX(&cat_flat_pairs));
  m.impl("lower_median", TORCH_BOX(&lower_median));
  m.impl("lower_median_in_place", TORCH_BOX(&lower_median_in_place));
  m.impl("splat_add_", TORCH_BOX(&splat_add_));
  m.impl("splat_add_unbounded_", TORCH_BOX(&splat_add_unbounded_));
  m.impl("splat_add_down_", TORCH_BOX(&splat_add_down_));
  m.impl("splat_add_down_unbounded_", TORCH_BOX(&splat_add_down_unbounded_));
  m.impl("splat", TORCH_BOX(&splat_new));
  m.impl("splat_unbounded", TORCH_BOX(&splat_unbounded));
  m.impl("splat_down", TORCH_BOX(&splat_down));
  m.impl("splat_down_unbounded", TORCH_BOX(&splat_down_unbounded));
  m.impl("window_mean", TORCH_BOX(&window_mean));
  m.impl("window_mean_overread", TORCH_BOX(&window_mean_overread));
  m.impl("window_mean_sentinel", TORCH_BOX(&window_mean_sentinel));
  m.impl("window_mean_sentinel_odd", TORCH_BOX(&window_mean_sentinel_odd));
  m.impl("window_mean_freed", TORCH_BOX(&window_mean_freed));
  m.impl("halves", TORCH_BOX(&halves));
  m.impl("halves_unbounded", TORCH_BOX(&halves_unbounded));
}

STABLE_TORCH_LIBRARY_IMPL(memory_ops, Meta, m) {
  m.impl("half_shift", TORCH_BOX(&elementwise_meta));
  m.impl("half_shift_overread", TORCH_BOX(&elementwise_meta));
  m.impl("half_shift_back", TORCH_BOX(&elementwise_meta));
  m.impl("half_shift_back_overread", TORCH_BOX(&elementwise_meta));
  m.impl("double_pairs", TORCH_BOX(&elementwise_meta));
  m.impl("double_pairs_no_tail", TORCH_BOX(&elementwise_meta));
  m.impl("double_pairs_scalar_path", TORCH_BOX(&elementwise_meta));
  m.impl("count_true", TORCH_BOX(&count_true_meta));
  m.impl("count_true_bytes", TORCH_BOX(&count_true_meta));
  m.impl("cat_flat", TORCH_BOX(&cat_flat_meta));
  m.impl("cat_flat_pairs", TORCH_BOX(&cat_flat_meta));
  m.impl("lower_median", TORCH_BOX(&lower_median_meta));
  m.impl("lower_median_in_place", TORCH_BOX(&lower_median_meta));
  m.impl("splat_add_", TORCH_BOX(&splat_meta));
  m.impl("splat_add_unbounded_", TORCH_BOX(&splat_meta));
  m.impl("splat_add_down_", TORCH_BOX(&splat_meta));
  m.impl("splat_add_down_unbounded_", TORCH_BOX(&splat_meta));
  m.impl("splat", TORCH_BOX(&splat_new_meta));
  m.impl("splat_unbounded", TORCH_BOX(&splat_new_meta));
  m.impl("splat_down", TORCH_BOX(&splat_new_meta));
  m.impl("splat_down_unbounded", TORCH_BOX(&splat_new_meta));
  m.impl("window_mean", TORCH_BOX(&window_mean_meta));
  m.impl("window_mean_overread", TORCH_BOX(&window_mean_meta));
  m.impl("window_mean_sentinel", TORCH_BOX(&window_mean_meta));
  m.impl("window_mean_sentinel_odd", TORCH_BOX(&window_mean_meta));
  m.impl("window_mean_freed", TORCH_BOX(&window_mean_meta));
  m.impl("halves", TORCH_BOX(&halves_meta));
  m.impl("halves_unbounded", TORCH_BOX(&halves_meta));
}
