// opcheck4j's C++ companion: what the harness needs from libtorch that the JavaCPP presets cannot give
// Java (subclasses of C++ classes, an allocator). It is classic TORCH_LIBRARY code built with the
// runtime's exact headers, loaded by every worker before the user's libraries, and reached from Java
// through the dispatcher only: each capability is an operator of the opcheck4j namespace. This file
// holds the handshake; each capability lives in a file of its own beside it.
#include <torch/library.h>

namespace {
// Raised whenever an operator of this namespace changes its schema or meaning: the worker refuses a
// companion whose number is not the one it was written for (dev.opcheck4j.torch.Companion.ABI).
constexpr int64_t kCompanionAbi = 1;

int64_t companion_abi() { return kCompanionAbi; }
}  // namespace

TORCH_LIBRARY(opcheck4j, m) { m.def("companion_abi() -> int", &companion_abi); }
