// Operators that take the process down, hang, or flood its output: the supervisor must turn each
// into a finding about that op and carry on. Each op is marked (`// OP:` / `// EXPECT:`) with the one
// failed result it must produce; an op with no EXPECT must pass. Every other check on them passes or
// is skipped. Their Meta kernels are correct, so only the real (CPU) kernel misbehaves.
#include "kernels.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <queue>
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

// SIGSEGV: reads through a null pointer.
// OP: crash_ops::null_deref
// EXPECT: kernel.crash
double* volatile nowhere = nullptr;  // volatile: the compiler cannot see it is null
Tensor null_deref(Tensor x) {
  double v = *nowhere;
  return map_new(x, [&](int64_t) { return v; });
}

// SIGABRT: calls abort().
// OP: crash_ops::calls_abort
// EXPECT: kernel.crash
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

// Std::terminate: an exception escapes a noexcept function.
// OP: crash_ops::throws_in_noexcept
// EXPECT: kernel.crash
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

// Stack overflow: unbounded recursion.
// OP: crash_ops::deep_recursion
// EXPECT: kernel.crash
Tensor deep_recursion(Tensor x) {
  int r = recurse(0);
  return map_new(x, [&](int64_t) { return static_cast<double>(r); });
}

// Never returns.
// OP: crash_ops::spins
// EXPECT: kernel.timeout
Tensor spins(Tensor x) {
  volatile uint64_t n = 0;
  while (true) {
    n = n + 1;
  }
  return x;
}

// Calls exit(0): the process ends "successfully" in the middle of a call.
// OP: crash_ops::calls_exit
// EXPECT: kernel.crash
Tensor calls_exit(Tensor x) {
  std::exit(0);
  return x;
}

// SIGKILL from outside, as the OS's out-of-memory killer sends it.
// OP: crash_ops::killed
// EXPECT: kernel.crash
Tensor killed(Tensor x) {
  kill(getpid(), SIGKILL);
  pause();
  return x;
}

// Asks for 64 TiB: libtorch's allocator raises, naming the bytes.
// OP: crash_ops::huge_alloc
// EXPECT: kernel.error
Tensor huge_alloc(Tensor x) {
  Tensor big = torch::stable::new_empty(x, {int64_t{1} << 22, int64_t{1} << 22});
  return big;
}

// Prints megabytes to stdout and stderr, including lines that look like the harness protocol,
// then returns a correct copy of x: must pass.
// OP: crash_ops::chatty
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

// Crashes on one class of generated inputs and has a Meta defect that shows only on another: after the
// crash, generation must go on for the other checks. The CPU kernel reads the first element of an
// empty feature map (SIGSEGV, as a kernel that never checks numel() does); the Meta kernel swaps the
// two sizes, which is right for the square example and wrong for the first non-square try.
// OP: crash_ops::empty_crash_meta_swap
// EXPECT: kernel.crash, fake.metadata
Tensor empty_crash_meta_swap(Tensor x) {
  if (x.numel() == 0) {
    double v = *nowhere;
    return map_new(x, [&](int64_t) { return v; });
  }
  return copy_of(x);
}

Tensor empty_crash_meta_swap_meta(Tensor x) {
  return torch::stable::new_empty(x, {x.size(1), x.size(0)});
}

// A value defect on non-square inputs (element 1 is off by one from 2*x) and a crash on a smaller,
// square one (a single element: SIGSEGV). The example is square, so both show only on generated
// inputs: the crash on the 1x1 edge case, the wrong value on the untied one (1x2). The value finding's
// minimal example is the smallest non-square input with an element 1, never the 1x1 input that kills
// the worker, although that one is smaller.
// OP: crash_ops::wrong_large_dies_small
// EXPECT: kernel.crash, reference.values
Tensor wrong_large_dies_small(Tensor x) {
  if (x.numel() == 1) {
    double v = *nowhere;
    return map_new(x, [&](int64_t) { return v; });
  }
  Tensor xc = torch::stable::contiguous(x);
  bool square = x.size(0) == x.size(1);
  return map_new(xc, [&](int64_t i) { return 2.0 * elem(xc, i) + (!square && i == 1 ? 1.0 : 0.0); });
}

// pytorch3d's knn_points_idx on the CPU (pytorch3d/csrc/knn/knn_cpu.cpp and knn.h, our own port of its
// contract and its bug): for each point of p1 (N, P1, D), the indices and distances of its K nearest points
// of p2 (N, P2, D), by the squared L2 distance (norm 2) or the L1 distance (norm 1). A norm other than 1 or
// 2 is refused with upstream's message. K is not checked: with K = 0 the first comparison reads the top of
// an empty priority queue (`size < K || dist < std::get<0>(q.top())`), a read through a null pointer:
// SIGSEGV, in real PyTorch too. Every other input is right.
// OP: crash_ops::knn_points_idx
// EXPECT: kernel.crash
void check_knn(const Tensor& p1, const Tensor& p2, int64_t norm) {
  STD_TORCH_CHECK(norm == 1 || norm == 2, "Support for 1 or 2 norm.");
  STD_TORCH_CHECK(p1.dim() == 3 && p2.dim() == 3, "knn_points_idx: p1 and p2 must be (N, P, D)");
  STD_TORCH_CHECK(p1.size(0) == p2.size(0), "knn_points_idx: p1 and p2 must have the same batch size");
  STD_TORCH_CHECK(p1.size(2) == p2.size(2), "knn_points_idx: p1 and p2 must have the same point dimension");
  STD_TORCH_CHECK(p1.scalar_type() == ScalarType::Float && p2.scalar_type() == ScalarType::Float,
      "knn_points_idx: p1 and p2 must be float32");
}

std::tuple<Tensor, Tensor> knn_points_idx(Tensor p1, Tensor p2, int64_t norm, int64_t K) {
  check_knn(p1, p2, norm);
  Tensor a = torch::stable::contiguous(p1);
  Tensor b = torch::stable::contiguous(p2);
  const int64_t N = a.size(0), P1 = a.size(1), D = a.size(2), P2 = b.size(1);
  Tensor idxs = torch::stable::new_zeros(a, {N, P1, K}, ScalarType::Long);
  Tensor dists = torch::stable::new_zeros(a, {N, P1, K});
  const auto* pa = static_cast<const float*>(a.const_data_ptr());
  const auto* pb = static_cast<const float*>(b.const_data_ptr());
  auto* id = static_cast<int64_t*>(idxs.data_ptr());
  auto* di = static_cast<float*>(dists.data_ptr());
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t i1 = 0; i1 < P1; ++i1) {
      std::priority_queue<std::tuple<float, int64_t>> q;
      for (int64_t i2 = 0; i2 < P2; ++i2) {
        float dist = 0;
        for (int64_t d = 0; d < D; ++d) {
          float diff = pa[(n * P1 + i1) * D + d] - pb[(n * P2 + i2) * D + d];
          dist += norm == 1 ? std::abs(diff) : diff * diff;
        }
        int64_t size = static_cast<int64_t>(q.size());
        if (size < K || dist < std::get<0>(q.top())) {
          q.emplace(dist, i2);
          if (size >= K) q.pop();
        }
      }
      while (!q.empty()) {
        auto t = q.top();
        q.pop();
        int64_t k = static_cast<int64_t>(q.size());
        di[(n * P1 + i1) * K + k] = std::get<0>(t);
        id[(n * P1 + i1) * K + k] = std::get<1>(t);
      }
    }
  }
  return {idxs, dists};
}

std::tuple<Tensor, Tensor> knn_points_idx_meta(Tensor p1, Tensor p2, int64_t norm, int64_t K) {
  check_knn(p1, p2, norm);
  STD_TORCH_CHECK(K >= 0, "knn_points_idx: K must not be negative");
  return {torch::stable::new_empty(p1, {p1.size(0), p1.size(1), K}, ScalarType::Long),
      torch::stable::new_empty(p1, {p1.size(0), p1.size(1), K})};
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
  m.def("empty_crash_meta_swap(Tensor x) -> Tensor");
  m.def("wrong_large_dies_small(Tensor x) -> Tensor");
  m.def("knn_points_idx(Tensor p1, Tensor p2, int norm, int K) -> (Tensor, Tensor)");
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
  m.impl("empty_crash_meta_swap", TORCH_BOX(&empty_crash_meta_swap));
  m.impl("wrong_large_dies_small", TORCH_BOX(&wrong_large_dies_small));
  m.impl("knn_points_idx", TORCH_BOX(&knn_points_idx));
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
  m.impl("empty_crash_meta_swap", TORCH_BOX(&empty_crash_meta_swap_meta));
  m.impl("wrong_large_dies_small", TORCH_BOX(&same_shape_meta));
  m.impl("knn_points_idx", TORCH_BOX(&knn_points_idx_meta));
}
