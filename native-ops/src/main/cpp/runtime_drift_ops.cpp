// A stable-ABI library (target 2.10, so it loads into 2.10 and 2.13) whose kernel reads which libtorch it
// runs on and differs: scale(x, s) = x * s, times (1 + 1e-3) when the process's libtorch exports
// torch_from_blob (a shim 2.11 added; looked up at run time, so the library links on both). Not a real aten
// change between 2.10 and 2.13: a kernel made to read the runtime version, so that runtime.agree has a
// difference to find. Its twin, steady, gives the same on every runtime.
// EXPECT: runtime.agree (check --runtime 2.10.0,2.13.0): scale fails, steady passes
#include "kernels.h"

#include <dlfcn.h>

using namespace opcheck4j;

namespace {

bool newer_runtime() {
  static const bool newer = dlsym(RTLD_DEFAULT, "torch_from_blob") != nullptr;
  return newer;
}

Tensor scale(Tensor x, double s) {
  check_floating(x, "scale: x");
  Tensor xc = torch::stable::contiguous(x);
  double k = newer_runtime() ? s * (1.0 + 1e-3) : s;
  return map_new(xc, [&](int64_t i) { return elem(xc, i) * k; });
}

Tensor steady(Tensor x, double s) {
  check_floating(x, "steady: x");
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i) * s; });
}

Tensor meta(Tensor x, double s) {
  check_floating(x, "scale: x");
  return torch::stable::new_empty(x, x.sizes());
}

}  // namespace

STABLE_TORCH_LIBRARY(runtime_drift_ops, m) {
  m.def("scale(Tensor x, float s) -> Tensor");
  m.def("steady(Tensor x, float s) -> Tensor");
}
STABLE_TORCH_LIBRARY_IMPL(runtime_drift_ops, CPU, m) {
  m.impl("scale", TORCH_BOX(&scale));
  m.impl("steady", TORCH_BOX(&steady));
}
STABLE_TORCH_LIBRARY_IMPL(runtime_drift_ops, Meta, m) {
  m.impl("scale", TORCH_BOX(&meta));
  m.impl("steady", TORCH_BOX(&meta));
}
