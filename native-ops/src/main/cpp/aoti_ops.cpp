// The ops of an AOTInductor package fixture (issue 53), in seven releases of one library:
//   AOTI_RELEASE=1  libaoti_v1.so           the release fixtures/models/aoti/aoti_ops.pt2 was compiled with
//   AOTI_RELEASE=2  libaoti_v2_removed.so   aoti_ops::gone is gone
//   AOTI_RELEASE=3  libaoti_v2_retyped.so   retyped's int n is a float
//   AOTI_RELEASE=4  libaoti_v2_renamed.so   renamed's scale is called factor
//   AOTI_RELEASE=5  libaoti_v2_mutates.so   mutated writes its y, declared Tensor(a!)
//   AOTI_RELEASE=6  libaoti_v2_nodefault.so defaulted's n has no default any more
//   AOTI_RELEASE=7  libaoti_v2_extended.so  extended has a new trailing float alpha=1.0
// The first nine ops take one argument kind each that the proxy executor fills (Tensor, Tensor[], int, float,
// bool, optional, int[], multiple returns, an out= argument) and are the same in every release; the last six
// are the rows of the table, each changed in one release (the OP lines). All seven register
// the namespace aoti_ops, so no two of them load into one process.
#include "kernels.h"

#include <optional>

using namespace opcheck4j;

namespace {

Tensor like(Tensor x) { return torch::stable::new_empty(x, x.sizes()); }

void same_sizes(const Tensor& a, const Tensor& b, const char* op) {
  STD_TORCH_CHECK(sizes_of(a) == sizes_of(b), op, ": the tensors must have the same sizes");
}

// twice(x, y) = 2x + y
Tensor twice(Tensor x, Tensor y) {
  same_sizes(x, y, "twice");
  Tensor xc = torch::stable::contiguous(x);
  Tensor yc = torch::stable::contiguous(y);
  return map_new(xc, [&](int64_t i) { return 2 * elem(xc, i) + elem(yc, i); });
}
Tensor twice_meta(Tensor x, Tensor y) { return like(x); }

// total(xs) = the elementwise sum of a non-empty list
Tensor total(std::vector<Tensor> xs) {
  STD_TORCH_CHECK(!xs.empty(), "total: xs must not be empty");
  std::vector<Tensor> cs;
  for (auto& x : xs) {
    same_sizes(x, xs[0], "total");
    cs.push_back(torch::stable::contiguous(x));
  }
  return map_new(cs[0], [&](int64_t i) {
    double s = 0;
    for (auto& c : cs) s += elem(c, i);
    return s;
  });
}
Tensor total_meta(std::vector<Tensor> xs) {
  STD_TORCH_CHECK(!xs.empty(), "total: xs must not be empty");
  return like(xs[0]);
}

Tensor shift(Tensor x, int64_t n) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i) + static_cast<double>(n); });
}
Tensor shift_meta(Tensor x, int64_t n) { return like(x); }

Tensor scale(Tensor x, double s) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i) * s; });
}
Tensor scale_meta(Tensor x, double s) { return like(x); }

Tensor flip(Tensor x, bool negate) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return negate ? -elem(xc, i) : elem(xc, i); });
}
Tensor flip_meta(Tensor x, bool negate) { return like(x); }

// affine(x, bias, gain) = x * (gain or 1) + (bias or 0)
Tensor affine(Tensor x, std::optional<Tensor> bias, std::optional<double> gain) {
  if (bias) same_sizes(x, *bias, "affine");
  Tensor xc = torch::stable::contiguous(x);
  std::optional<Tensor> bc;
  if (bias) bc = torch::stable::contiguous(*bias);
  double g = gain.value_or(1.0);
  return map_new(xc, [&](int64_t i) { return elem(xc, i) * g + (bc ? elem(*bc, i) : 0.0); });
}
Tensor affine_meta(Tensor x, std::optional<Tensor> bias, std::optional<double> gain) { return like(x); }

// weighted(x, weights) = x * the sum of the weights
Tensor weighted(Tensor x, std::vector<int64_t> weights) {
  double w = 0;
  for (int64_t v : weights) w += static_cast<double>(v);
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i) * w; });
}
Tensor weighted_meta(Tensor x, std::vector<int64_t> weights) { return like(x); }

// split_sign(x) = (max(x, 0), max(-x, 0))
std::tuple<Tensor, Tensor> split_sign(Tensor x) {
  Tensor xc = torch::stable::contiguous(x);
  Tensor pos = map_new(xc, [&](int64_t i) { return elem(xc, i) > 0 ? elem(xc, i) : 0.0; });
  Tensor neg = map_new(xc, [&](int64_t i) { return elem(xc, i) < 0 ? -elem(xc, i) : 0.0; });
  return {pos, neg};
}
std::tuple<Tensor, Tensor> split_sign_meta(Tensor x) { return {like(x), like(x)}; }

// square_into(x, *, out): out = x * x, written through out's strides
void square_into(Tensor x, Tensor out) {
  same_sizes(x, out, "square_into");
  Tensor xc = torch::stable::contiguous(x);
  torch::stable::copy_(out, map_new(xc, [&](int64_t i) { return elem(xc, i) * elem(xc, i); }));
}
void square_into_meta(Tensor x, Tensor out) {}

[[maybe_unused]] Tensor plus_one(Tensor x) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i) + 1; });
}

[[maybe_unused]] Tensor times_int(Tensor x, int64_t n) { return scale(x, static_cast<double>(n)); }
[[maybe_unused]] Tensor times_int_meta(Tensor x, int64_t n) { return like(x); }

[[maybe_unused]] Tensor plus(Tensor x, Tensor y) {
  same_sizes(x, y, "mutated");
  Tensor xc = torch::stable::contiguous(x);
  Tensor yc = torch::stable::contiguous(y);
  return map_new(xc, [&](int64_t i) { return elem(xc, i) + elem(yc, i); });
}
Tensor plus_meta(Tensor x, Tensor y) { return like(x); }

// the release that declares y written writes it: y *= 2, after reading it
[[maybe_unused]] Tensor plus_then_double(Tensor x, Tensor y) {
  Tensor out = plus(x, y);
  Tensor yc = torch::stable::contiguous(y);
  torch::stable::copy_(y, map_new(yc, [&](int64_t i) { return 2 * elem(yc, i); }));
  return out;
}

[[maybe_unused]] Tensor times_three(Tensor x) { return scale(x, 3.0); }
[[maybe_unused]] Tensor times_three_alpha(Tensor x, double alpha) { return scale(x, 3.0 * alpha); }
[[maybe_unused]] Tensor times_three_alpha_meta(Tensor x, double alpha) { return like(x); }

}  // namespace

STABLE_TORCH_LIBRARY(aoti_ops, m) {
  m.def("twice(Tensor x, Tensor y) -> Tensor");
  m.def("total(Tensor[] xs) -> Tensor");
  m.def("shift(Tensor x, int n) -> Tensor");
  m.def("scale(Tensor x, float s) -> Tensor");
  m.def("flip(Tensor x, bool negate) -> Tensor");
  m.def("affine(Tensor x, Tensor? bias, float? gain) -> Tensor");
  m.def("weighted(Tensor x, int[] weights) -> Tensor");
  m.def("split_sign(Tensor x) -> (Tensor, Tensor)");
  m.def("square_into(Tensor x, *, Tensor(a!) out) -> ()");
  // Each op below is changed by one release (the libaoti_v2_*.so named on its OP line); the check a package
  // compiled with libaoti_v1.so must fail on that release, or none where the package keeps working.
  // OP: aoti_ops::gone (libaoti_v2_removed.so)
  // EXPECT: aoti.calls
#if AOTI_RELEASE != 2
  m.def("gone(Tensor x) -> Tensor");
#endif
  // OP: aoti_ops::retyped (libaoti_v2_retyped.so)
  // EXPECT: aoti.calls
#if AOTI_RELEASE == 3
  m.def("retyped(Tensor x, float n) -> Tensor");
#else
  m.def("retyped(Tensor x, int n) -> Tensor");
#endif
  // OP: aoti_ops::renamed (libaoti_v2_renamed.so)
  // EXPECT: aoti.calls
#if AOTI_RELEASE == 4
  m.def("renamed(Tensor x, float factor) -> Tensor");
#else
  m.def("renamed(Tensor x, float scale) -> Tensor");
#endif
  // OP: aoti_ops::mutated (libaoti_v2_mutates.so): aoti.calls instead with the baseline of libaoti_v1.so; the run
  // gives other outputs (the op writes the package's input y, which the package reads again)
  // EXPECT: aoti.annotations, aoti.run
#if AOTI_RELEASE == 5
  m.def("mutated(Tensor x, Tensor(a!) y) -> Tensor");
#else
  m.def("mutated(Tensor x, Tensor y) -> Tensor");
#endif
  // OP: aoti_ops::defaulted (libaoti_v2_nodefault.so): the package recorded n's value
  // EXPECT:
#if AOTI_RELEASE == 6
  m.def("defaulted(Tensor x, int n) -> Tensor");
#else
  m.def("defaulted(Tensor x, int n=2) -> Tensor");
#endif
  // OP: aoti_ops::extended (libaoti_v2_extended.so): a trailing argument with a default
  // EXPECT:
#if AOTI_RELEASE == 7
  m.def("extended(Tensor x, float alpha=1.0) -> Tensor");
#else
  m.def("extended(Tensor x) -> Tensor");
#endif
}

STABLE_TORCH_LIBRARY_IMPL(aoti_ops, CPU, m) {
  m.impl("twice", TORCH_BOX(&twice));
  m.impl("total", TORCH_BOX(&total));
  m.impl("shift", TORCH_BOX(&shift));
  m.impl("scale", TORCH_BOX(&scale));
  m.impl("flip", TORCH_BOX(&flip));
  m.impl("affine", TORCH_BOX(&affine));
  m.impl("weighted", TORCH_BOX(&weighted));
  m.impl("split_sign", TORCH_BOX(&split_sign));
  m.impl("square_into", TORCH_BOX(&square_into));
#if AOTI_RELEASE != 2
  m.impl("gone", TORCH_BOX(&plus_one));
#endif
#if AOTI_RELEASE == 3
  m.impl("retyped", TORCH_BOX(&scale));
#else
  m.impl("retyped", TORCH_BOX(&times_int));
#endif
  m.impl("renamed", TORCH_BOX(&scale));
#if AOTI_RELEASE == 5
  m.impl("mutated", TORCH_BOX(&plus_then_double));
#else
  m.impl("mutated", TORCH_BOX(&plus));
#endif
  m.impl("defaulted", TORCH_BOX(&shift));
#if AOTI_RELEASE == 7
  m.impl("extended", TORCH_BOX(&times_three_alpha));
#else
  m.impl("extended", TORCH_BOX(&times_three));
#endif
}

STABLE_TORCH_LIBRARY_IMPL(aoti_ops, Meta, m) {
  m.impl("twice", TORCH_BOX(&twice_meta));
  m.impl("total", TORCH_BOX(&total_meta));
  m.impl("shift", TORCH_BOX(&shift_meta));
  m.impl("scale", TORCH_BOX(&scale_meta));
  m.impl("flip", TORCH_BOX(&flip_meta));
  m.impl("affine", TORCH_BOX(&affine_meta));
  m.impl("weighted", TORCH_BOX(&weighted_meta));
  m.impl("split_sign", TORCH_BOX(&split_sign_meta));
  m.impl("square_into", TORCH_BOX(&square_into_meta));
#if AOTI_RELEASE != 2
  m.impl("gone", TORCH_BOX(&like));
#endif
#if AOTI_RELEASE == 3
  m.impl("retyped", TORCH_BOX(&scale_meta));
#else
  m.impl("retyped", TORCH_BOX(&times_int_meta));
#endif
  m.impl("renamed", TORCH_BOX(&scale_meta));
  m.impl("mutated", TORCH_BOX(&plus_meta));
  m.impl("defaulted", TORCH_BOX(&shift_meta));
#if AOTI_RELEASE == 7
  m.impl("extended", TORCH_BOX(&times_three_alpha_meta));
#else
  m.impl("extended", TORCH_BOX(&like));
#endif
}
