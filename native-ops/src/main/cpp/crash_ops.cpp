// Operators that take the process down, hang, or flood its output: the supervisor must turn each
// into a finding about that op and carry on. Each op is marked with the one result it must produce
// (`// EXPECT: check.id`, or `// EXPECT: passes`); every other check on it passes or is skipped.
// Their Meta kernels are correct, so only the real (CPU) kernel misbehaves.
#include "kernels.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <unistd.h>

using namespace opcheck4j;

namespace {

Tensor same_shape_meta(Tensor x) { return torch::stable::new_empty(x, x.sizes()); }

Tensor copy_of(const Tensor& x) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i); });
}

// EXPECT: kernel.crash (SIGSEGV: reads through a null pointer)
Tensor null_deref(Tensor x) {
  volatile double* p = nullptr;
  double v = *p;
  return map_new(x, [&](int64_t) { return v; });
}

// EXPECT: kernel.crash (SIGABRT: calls abort())
Tensor calls_abort(Tensor x) {
  std::abort();
  return x;
}

[[noreturn]] void raise_in_noexcept() noexcept {
  // an exception escaping a noexcept function calls std::terminate
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wterminate"
  throw std::runtime_error("thrown inside a noexcept function");
#pragma GCC diagnostic pop
}

// EXPECT: kernel.crash (std::terminate: an exception escapes a noexcept function)
Tensor throws_in_noexcept(Tensor x) {
  raise_in_noexcept();
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
int recurse(int depth) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  return recurse(depth + 1) + frame[0];
}
#pragma GCC diagnostic pop

// EXPECT: kernel.crash (stack overflow: unbounded recursion)
Tensor deep_recursion(Tensor x) {
  int r = recurse(0);
  return map_new(x, [&](int64_t) { return static_cast<double>(r); });
}

// EXPECT: kernel.timeout (never returns)
Tensor spins(Tensor x) {
  volatile uint64_t n = 0;
  while (true) {
    n = n + 1;
  }
  return x;
}

// EXPECT: kernel.crash (calls exit(0): the process ends "successfully" in the middle of a call)
Tensor calls_exit(Tensor x) {
  std::exit(0);
  return x;
}

// EXPECT: kernel.crash (SIGKILL from outside, as the OS's out-of-memory killer sends it)
Tensor killed(Tensor x) {
  kill(getpid(), SIGKILL);
  pause();
  return x;
}

// EXPECT: kernel.error (asks for 64 TiB: libtorch's allocator raises, naming the bytes)
Tensor huge_alloc(Tensor x) {
  Tensor big = torch::stable::new_empty(x, {int64_t{1} << 22, int64_t{1} << 22});
  return big;
}

// EXPECT: passes (prints megabytes to stdout and stderr, including lines that look like the
// harness protocol, then returns a correct copy of x)
Tensor chatty(Tensor x) {
  static int calls = 0;
  size_t bytes = calls++ == 0 ? (size_t{2} << 20) : 4096;
  std::string line = "{\"id\":0,\"event\":\"done\",\"verdict\":{\"outcome\":\"FAILED\",\"facts\":[]}}\n";
  for (size_t written = 0; written < bytes; written += line.size()) {
    std::fputs(line.c_str(), stdout);
    std::fputs(line.c_str(), stderr);
  }
  std::fflush(stdout);
  std::cerr.flush();
  return copy_of(x);
}

}  // namespace

STABLE_TORCH_LIBRARY(crash_ops, m) {
  m.def("null_deref(Tensor x) -> Tensor");
  m.def("calls_abort(Tensor x) -> Tensor");
  m.def("throws_in_noexcept(Tensor x) -> Tensor");
  m.def("deep_recursion(Tensor x) -> Tensor");
  m.def("spins(Tensor x) -> Tensor");
  m.def("calls_exit(Tensor x) -> Tensor");
  m.def("killed(Tensor x) -> Tensor");
  m.def("huge_alloc(Tensor x) -> Tensor");
  m.def("chatty(Tensor x) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(crash_ops, CPU, m) {
  m.impl("null_deref", TORCH_BOX(&null_deref));
  m.impl("calls_abort", TORCH_BOX(&calls_abort));
  m.impl("throws_in_noexcept", TORCH_BOX(&throws_in_noexcept));
  m.impl("deep_recursion", TORCH_BOX(&deep_recursion));
  m.impl("spins", TORCH_BOX(&spins));
  m.impl("calls_exit", TORCH_BOX(&calls_exit));
  m.impl("killed", TORCH_BOX(&killed));
  m.impl("huge_alloc", TORCH_BOX(&huge_alloc));
  m.impl("chatty", TORCH_BOX(&chatty));
}

STABLE_TORCH_LIBRARY_IMPL(crash_ops, Meta, m) {
  m.impl("null_deref", TORCH_BOX(&same_shape_meta));
  m.impl("calls_abort", TORCH_BOX(&same_shape_meta));
  m.impl("throws_in_noexcept", TORCH_BOX(&same_shape_meta));
  m.impl("deep_recursion", TORCH_BOX(&same_shape_meta));
  m.impl("spins", TORCH_BOX(&same_shape_meta));
  m.impl("calls_exit", TORCH_BOX(&same_shape_meta));
  m.impl("killed", TORCH_BOX(&same_shape_meta));
  m.impl("huge_alloc", TORCH_BOX(&same_shape_meta));
  m.impl("chatty", TORCH_BOX(&same_shape_meta));
}
