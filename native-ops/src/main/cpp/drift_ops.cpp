// One op library in three builds, for baseline.values (./opcheck baseline --spec, check --baseline):
//   DRIFT_RELEASE=1   libdrift_v1.so        the release whose outputs a baseline records
//   DRIFT_RELEASE=2   libdrift_v2.so        scaled_sine's values drift by 1e-3 relative (see DRIFT: below)
//   DRIFT_RELEASE=3   libdrift_v2_same.so   a rebuild with identical values
// All three register the namespace `drift_ops`, so no two of them can be loaded into one process.
#include "kernels.h"

using namespace opcheck4j;

namespace {

#if DRIFT_RELEASE == 2
constexpr double kGain = 1.001;  // DRIFT: every value 1e-3 larger, relative
#else
constexpr double kGain = 1.0;
#endif

// OP: drift_ops::scaled_sine
// EXPECT: baseline.values
// scaled_sine(x, alpha) = sin(x) * alpha (times 1.001 in release 2), from aten ops.
Tensor scaled_sine(Tensor x, double alpha) { return mul(unary("aten::sin", x), scalar_like(x, alpha * kGain)); }

// square(x) = x * x in every release: a large output, recorded by summary and checksum.
Tensor square(Tensor x) { return mul(x, x); }

}  // namespace

STABLE_TORCH_LIBRARY(drift_ops, m) {
  m.def("scaled_sine(Tensor x, float alpha) -> Tensor");
  m.def("square(Tensor x) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(drift_ops, CompositeImplicitAutograd, m) {
  m.impl("scaled_sine", TORCH_BOX(&scaled_sine));
  m.impl("square", TORCH_BOX(&square));
}
