// Small helpers shared by the example kernels (stable ABI only).
#pragma once

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/Exception.h>

#include <array>
#include <cmath>
#include <limits>
#include <tuple>
#include <cstdint>
#include <vector>

namespace opcheck4j {

using torch::stable::Tensor;
using torch::headeronly::ScalarType;

inline std::vector<int64_t> sizes_of(const Tensor& t) {
  auto s = t.sizes();
  return std::vector<int64_t>(s.begin(), s.end());
}

inline bool is_floating(const Tensor& t) {
  return t.scalar_type() == ScalarType::Float || t.scalar_type() == ScalarType::Double;
}

// Applies f(i) -> double to fill a new tensor shaped like `like` (contiguous inputs expected).
template <class F>
Tensor map_new(const Tensor& like, F f) {
  STD_TORCH_CHECK(is_floating(like), "expected a float32 or float64 tensor");
  Tensor out = torch::stable::new_empty(like, like.sizes());
  int64_t n = out.numel();
  if (out.scalar_type() == ScalarType::Double) {
    auto* o = static_cast<double*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) o[i] = f(i);
  } else {
    auto* o = static_cast<float*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<float>(f(i));
  }
  return out;
}

// Reads element i of a contiguous float or double tensor. Any other dtype is a clear error, never a
// read of its bytes as floats: generation probes bool, integer and half-precision inputs too. Through
// const_data_ptr(): data_ptr() is the writable accessor, which copies a lazily cloned input first
// (memory.cow-input).
inline double elem(const Tensor& t, int64_t i) {
  STD_TORCH_CHECK(is_floating(t), "expected a float32 or float64 tensor");
  if (t.scalar_type() == ScalarType::Double) return static_cast<const double*>(t.const_data_ptr())[i];
  return static_cast<const float*>(t.const_data_ptr())[i];
}

inline void put(Tensor& t, int64_t i, double v) {
  STD_TORCH_CHECK(is_floating(t), "expected a float32 or float64 tensor");
  if (t.scalar_type() == ScalarType::Double) {
    static_cast<double*>(t.data_ptr())[i] = v;
  } else {
    static_cast<float*>(t.data_ptr())[i] = static_cast<float>(v);
  }
}

// Moves element i one unit in the last place up, in the tensor's own precision.
inline void bump_ulp(Tensor& t, int64_t i) {
  STD_TORCH_CHECK(is_floating(t), "expected a float32 or float64 tensor");
  if (t.scalar_type() == ScalarType::Double) {
    auto* p = static_cast<double*>(t.data_ptr()) + i;
    *p = std::nextafter(*p, std::numeric_limits<double>::infinity());
  } else {
    auto* p = static_cast<float*>(t.data_ptr()) + i;
    *p = std::nextafter(*p, std::numeric_limits<float>::infinity());
  }
}

inline void check_floating(const Tensor& t, const char* name) {
  STD_TORCH_CHECK(is_floating(t), name, " must be float32 or float64");
}

}  // namespace opcheck4j

namespace opcheck4j {

// Calls an aten operator through the stable dispatcher boundary (aten::name.overload).
template <size_t N>
inline Tensor aten(const char* name, const char* overload, std::array<StableIValue, N> stack) {
  STABLE_TORCH_ERROR_CODE_CHECK(torch_call_dispatcher(name, overload, stack.data(), TORCH_ABI_VERSION));
  return torch::stable::detail::to<Tensor>(stack[0]);
}

inline Tensor mul(const Tensor& a, const Tensor& b) {
  return aten<2>("aten::mul", "Tensor", {torch::stable::detail::from(a), torch::stable::detail::from(b)});
}

inline Tensor add(const Tensor& a, const Tensor& b) { return torch::stable::subtract(a, b, -1.0); }

inline Tensor detach(const Tensor& a) {
  return aten<1>("aten::detach", "", {torch::stable::detail::from(a)});
}

inline Tensor unary(const char* name, const Tensor& a) {
  return aten<1>(name, "", {torch::stable::detail::from(a)});
}

// A 0-dim tensor holding v, on a's device and of a's dtype (Scalar cannot cross the boundary in 2.10).
inline Tensor scalar_like(const Tensor& a, double v) {
  Tensor t = torch::stable::new_empty(a, {});
  torch::stable::fill_(t, v);
  return t;
}

// min_max(x) -> (min(x, 0), max(x, 0)) elementwise: two fresh outputs (the CPU kernel that good_ops and
// value_ops both register).
inline std::tuple<Tensor, Tensor> min_max(Tensor x) {
  check_floating(x, "min_max: x");
  Tensor xc = torch::stable::contiguous(x);
  Tensor lo = map_new(xc, [&](int64_t i) { return std::fmin(elem(xc, i), 0.0); });
  Tensor hi = map_new(xc, [&](int64_t i) { return std::fmax(elem(xc, i), 0.0); });
  return {lo, hi};
}

}  // namespace opcheck4j
