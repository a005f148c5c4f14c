// One op library in three releases, for schema.compatible (./opcheck baseline, check --baseline):
//   COMPAT_RELEASE=1   libcompat_v1.so     the release a baseline is recorded from
//   COMPAT_RELEASE=2   libcompat_v2.so     breaks every op of v1 in one way each (see BREAK: lines)
//   COMPAT_RELEASE=3   libcompat_v2_ok.so  compatible: a new op, and a new trailing argument with a default
// All three register the namespace `compat`, so no two of them can be loaded into one process.
#include "kernels.h"

using namespace opcheck4j;

namespace {

Tensor doubled(Tensor x) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return 2 * elem(xc, i); });
}
Tensor like(Tensor x) { return torch::stable::new_empty(x, x.sizes()); }

Tensor x_f(Tensor x, double) { return doubled(x); }
Tensor x_f_meta(Tensor x, double) { return like(x); }
Tensor x_i(Tensor x, int64_t) { return doubled(x); }
Tensor x_i_meta(Tensor x, int64_t) { return like(x); }
Tensor x_y(Tensor x, Tensor) { return doubled(x); }
Tensor x_y_meta(Tensor x, Tensor) { return like(x); }

}  // namespace

STABLE_TORCH_LIBRARY(compat, m) {
#if COMPAT_RELEASE == 1
  m.def("removed(Tensor x) -> Tensor");
  m.def("renamed(Tensor x, float scale) -> Tensor");
  m.def("retyped(Tensor x, int n) -> Tensor");
  m.def("defaulted(Tensor x, int n=2) -> Tensor");
  m.def("mutated(Tensor x, Tensor y) -> Tensor");
  m.def("meta_dropped(Tensor x) -> Tensor");
  m.def("extended(Tensor x) -> Tensor");
#elif COMPAT_RELEASE == 2
  // BREAK: compat::removed is gone
  m.def("renamed(Tensor x, float factor) -> Tensor");    // BREAK: argument scale renamed
  m.def("retyped(Tensor x, float n) -> Tensor");         // BREAK: n changed type
  m.def("defaulted(Tensor x, int n) -> Tensor");         // BREAK: n lost its default
  m.def("mutated(Tensor x, Tensor(a!) y) -> Tensor");    // BREAK: y is now written
  m.def("meta_dropped(Tensor x) -> Tensor");             // BREAK: the Meta kernel is gone (below)
  m.def("extended(Tensor x) -> Tensor");
#else
  m.def("removed(Tensor x) -> Tensor");
  m.def("renamed(Tensor x, float scale) -> Tensor");
  m.def("retyped(Tensor x, int n) -> Tensor");
  m.def("defaulted(Tensor x, int n=2) -> Tensor");
  m.def("mutated(Tensor x, Tensor y) -> Tensor");
  m.def("meta_dropped(Tensor x) -> Tensor");
  m.def("extended(Tensor x, float alpha=1.0) -> Tensor");  // compatible: trailing, with a default
  m.def("added(Tensor x) -> Tensor");                      // compatible: a new op
#endif
}

STABLE_TORCH_LIBRARY_IMPL(compat, CPU, m) {
#if COMPAT_RELEASE != 2
  m.impl("removed", TORCH_BOX(&doubled));
#endif
  m.impl("renamed", TORCH_BOX(&x_f));
#if COMPAT_RELEASE == 2
  m.impl("retyped", TORCH_BOX(&x_f));
#else
  m.impl("retyped", TORCH_BOX(&x_i));
#endif
  m.impl("defaulted", TORCH_BOX(&x_i));
  m.impl("mutated", TORCH_BOX(&x_y));
  m.impl("meta_dropped", TORCH_BOX(&doubled));
#if COMPAT_RELEASE == 3
  m.impl("extended", TORCH_BOX(&x_f));
  m.impl("added", TORCH_BOX(&doubled));
#else
  m.impl("extended", TORCH_BOX(&doubled));
#endif
}

STABLE_TORCH_LIBRARY_IMPL(compat, Meta, m) {
#if COMPAT_RELEASE != 2
  m.impl("removed", TORCH_BOX(&like));
  m.impl("meta_dropped", TORCH_BOX(&like));
#endif
  m.impl("renamed", TORCH_BOX(&x_f_meta));
#if COMPAT_RELEASE == 2
  m.impl("retyped", TORCH_BOX(&x_f_meta));
#else
  m.impl("retyped", TORCH_BOX(&x_i_meta));
#endif
  m.impl("defaulted", TORCH_BOX(&x_i_meta));
  m.impl("mutated", TORCH_BOX(&x_y_meta));
#if COMPAT_RELEASE == 3
  m.impl("extended", TORCH_BOX(&x_f_meta));
  m.impl("added", TORCH_BOX(&like));
#else
  m.impl("extended", TORCH_BOX(&like));
#endif
}
