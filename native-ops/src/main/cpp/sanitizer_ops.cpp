// Defects that only a sanitizer sees (issue 54), each op marked with the check that must trip (`// OP:` /
// `// EXPECT:`) beside its good twin, which must pass everything. One translation unit, built four ways
// (CMakeLists.txt): plain, with AddressSanitizer and UndefinedBehaviorSanitizer, with ThreadSanitizer, and with
// gcov's coverage. Each defect is invisible in the op's values in a plain build: the bytes read past the stack
// array are never used, the double written past the vector lands in the slack glibc's malloc leaves after an
// even number of doubles, the temporary's freed bytes are read past the 16 that free() reuses, the signed
// overflow wraps as the unsigned twin does, and the racing threads add each half once. The EXPECT lines name the
// check under the sanitizer the op is built for; in a plain build each op passes or fails what that build shows.
#include "kernels.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

using namespace opcheck4j;

namespace {

// x's elements (float32 or float64, any layout), flattened, as doubles.
std::vector<double> values_of(const Tensor& x, const char* name) {
  check_floating(x, name);
  Tensor xc = torch::stable::contiguous(x);
  std::vector<double> v(static_cast<size_t>(xc.numel()));
  for (int64_t i = 0; i < xc.numel(); ++i) v[i] = elem(xc, i);
  return v;
}

// A new contiguous tensor like x (its elements in x's flattened order; sized by aten, so that a symbolic size
// stays symbolic), or a float64 tensor of one element.
Tensor doubles_like(const Tensor& x) {
  return torch::stable::contiguous(torch::stable::empty_like(x));
}

Tensor one_double(const Tensor& x) {
  return torch::stable::new_empty(x, {1}, ScalarType::Double);
}

Tensor same_meta(Tensor x) {
  check_floating(x, "sanitizer_ops: x");
  return doubles_like(x);
}

Tensor one_meta(Tensor x) {
  check_floating(x, "sanitizer_ops: x");
  return torch::stable::new_empty(x, {1}, ScalarType::Double);
}

// ---- A stack array read one element too far. window_max(x)[i] = max(x[i], x[i+1], x[i+2], x[i+3]) over the
// flattened elements, the window cut at the end.

double window_of(const double* in, int64_t i, int64_t n) {
  double w[4] = {0, 0, 0, 0};
  int64_t k = 0;
  for (; k < 4 && i + k < n; ++k) w[k] = in[i + k];
  double best = w[0];
  for (int64_t j = 1; j < k; ++j) best = w[j] > best ? w[j] : best;
  return best;
}

// OP: sanitizer_ops::window_max
Tensor window_max(Tensor x) {
  std::vector<double> values = values_of(x, "window_max: x");
  int64_t n = static_cast<int64_t>(values.size());
  Tensor out = doubles_like(x);
  const double* in = values.data();
  for (int64_t i = 0; i < n; ++i) put(out, i, window_of(in, i, n));
  return out;
}

// The window is compared in pairs, each pair read with one two-element load: the last pair of a full window
// starts at w[3], and its second half lies past the array. That half is never used.
double window_of_pairs(const double* in, int64_t i, int64_t n) {
  double w[4] = {0, 0, 0, 0};
  int64_t k = 0;
  for (; k < 4 && i + k < n; ++k) w[k] = in[i + k];
  double best = w[0];
  for (int64_t j = 1; j < k; ++j) {
    double pair[2];
    std::memcpy(pair, w + j, sizeof pair);  // EXPECT-LINE: stack-buffer-overflow
    best = pair[0] > best ? pair[0] : best;
  }
  return best;
}

// OP: sanitizer_ops::window_max_pairs
// EXPECT: sanitizer.address
Tensor window_max_pairs(Tensor x) {
  std::vector<double> values = values_of(x, "window_max_pairs: x");
  int64_t n = static_cast<int64_t>(values.size());
  Tensor out = doubles_like(x);
  const double* in = values.data();
  for (int64_t i = 0; i < n; ++i) put(out, i, window_of_pairs(in, i, n));
  return out;
}

// ---- A std::vector written one element too far. running_sum(x)[i] = x[0] + ... + x[i], through a scratch
// vector of an even length (two elements at a time).

// OP: sanitizer_ops::running_sum
Tensor running_sum(Tensor x) {
  std::vector<double> values = values_of(x, "running_sum: x");
  int64_t n = static_cast<int64_t>(values.size());
  const double* in = values.data();
  std::vector<double> scratch(static_cast<size_t>(std::max<int64_t>(2, n + n % 2)));
  double s = 0;
  for (int64_t i = 0; i < n; ++i) scratch[i] = s += in[i];
  Tensor out = doubles_like(x);
  for (int64_t i = 0; i < n; ++i) put(out, i, scratch[i]);
  return out;
}

// The scratch vector's "one past the end" is written too, with the total: a sentinel never read.
// OP: sanitizer_ops::running_sum_sentinel
// EXPECT: sanitizer.address
Tensor running_sum_sentinel(Tensor x) {
  std::vector<double> values = values_of(x, "running_sum_sentinel: x");
  int64_t n = static_cast<int64_t>(values.size());
  const double* in = values.data();
  size_t even = static_cast<size_t>(std::max<int64_t>(2, n + n % 2));
  std::vector<double> scratch(even);
  double s = 0;
  for (int64_t i = 0; i < n; ++i) scratch[i] = s += in[i];
  scratch.data()[even] = s;  // EXPECT-LINE: heap-buffer-overflow
  Tensor out = doubles_like(x);
  for (int64_t i = 0; i < n; ++i) put(out, i, scratch[i]);
  return out;
}

// ---- A temporary tensor read after it was freed. tail_sum(x) = the sum of x's elements, computed from a
// padded copy: four zeros, then the elements.

Tensor padded(const Tensor& like, const std::vector<double>& values) {
  int64_t n = static_cast<int64_t>(values.size());
  Tensor p = torch::stable::new_zeros(like, {n + 4}, ScalarType::Double);
  if (n > 0) std::memcpy(static_cast<double*>(p.data_ptr()) + 4, values.data(), sizeof(double) * n);
  return p;
}

// OP: sanitizer_ops::tail_sum
Tensor tail_sum(Tensor x) {
  std::vector<double> values = values_of(x, "tail_sum: x");
  int64_t n = static_cast<int64_t>(values.size());
  Tensor out = one_double(x);
  Tensor copy = padded(x, values);
  const double* p = static_cast<const double*>(copy.const_data_ptr());
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += p[4 + i];
  *static_cast<double*>(out.data_ptr()) = s;
  return out;
}

// The padded copy is a temporary: its storage is freed at the end of the statement that takes its pointer.
// OP: sanitizer_ops::tail_sum_dangling
// EXPECT: sanitizer.address
Tensor tail_sum_dangling(Tensor x) {
  std::vector<double> values = values_of(x, "tail_sum_dangling: x");
  int64_t n = static_cast<int64_t>(values.size());
  Tensor out = one_double(x);
  const double* p = static_cast<const double*>(padded(x, values).const_data_ptr());
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += p[4 + i];  // EXPECT-LINE: heap-use-after-free
  *static_cast<double*>(out.data_ptr()) = s;
  return out;
}

// ---- Signed overflow in hash arithmetic. bit_hash(x) = a 31-multiplier hash of the elements' float32 bits,
// as a double in [0, 2^32).

uint32_t bits_of(double v) {
  float f = static_cast<float>(v);
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// OP: sanitizer_ops::bit_hash
Tensor bit_hash(Tensor x) {
  std::vector<double> values = values_of(x, "bit_hash: x");
  int64_t n = static_cast<int64_t>(values.size());
  const double* in = values.data();
  uint32_t h = 17;
  for (int64_t i = 0; i < n; ++i) h = h * 31u + bits_of(in[i]);
  Tensor out = one_double(x);
  *static_cast<double*>(out.data_ptr()) = static_cast<double>(h);
  return out;
}

// The same hash in int: it overflows as soon as an element is not zero (wrapping, in practice, to the same bits).
// OP: sanitizer_ops::bit_hash_signed
// EXPECT: sanitizer.undefined
Tensor bit_hash_signed(Tensor x) {
  std::vector<double> values = values_of(x, "bit_hash_signed: x");
  int64_t n = static_cast<int64_t>(values.size());
  const double* in = values.data();
  int32_t h = 17;
  for (int64_t i = 0; i < n; ++i) {
    h = h * 31 + static_cast<int32_t>(bits_of(in[i]));  // EXPECT-LINE: signed integer overflow
  }
  Tensor out = one_double(x);
  *static_cast<double*>(out.data_ptr()) = static_cast<double>(static_cast<uint32_t>(h));
  return out;
}

// ---- Two std::threads, each summing one half. halves_sum(x) = the sum of x's elements.

double sum_of(const double* in, int64_t from, int64_t to) {
  double s = 0;
  for (int64_t i = from; i < to; ++i) s += in[i];
  return s;
}

// OP: sanitizer_ops::halves_sum
Tensor halves_sum(Tensor x) {
  std::vector<double> values = values_of(x, "halves_sum: x");
  int64_t n = static_cast<int64_t>(values.size());
  const double* in = values.data();
  double low = 0, high = 0;
  std::thread a([&] { low = sum_of(in, 0, n / 2); });
  std::thread b([&] { high = sum_of(in, n / 2, n); });
  a.join();
  b.join();
  Tensor out = one_double(x);
  *static_cast<double*>(out.data_ptr()) = low + high;
  return out;
}

// Both threads add their half into one total, unsynchronized.
// OP: sanitizer_ops::halves_sum_shared
// EXPECT: sanitizer.thread
Tensor halves_sum_shared(Tensor x) {
  std::vector<double> values = values_of(x, "halves_sum_shared: x");
  int64_t n = static_cast<int64_t>(values.size());
  const double* in = values.data();
  double total = 0;
  auto add = [&](int64_t from, int64_t to) {
    double s = sum_of(in, from, to);
    total += s;  // EXPECT-LINE: data race
  };
  std::thread a(add, 0, n / 2);
  std::thread b(add, n / 2, n);
  a.join();
  b.join();
  Tensor out = one_double(x);
  *static_cast<double*>(out.data_ptr()) = total;
  return out;
}

// ---- torch::stable::parallel_for (at::parallel_for, on OpenMP), each chunk summing its range.
// chunks_sum(x) = the sum of x's elements.

// Each chunk's partial sum goes to the slot of its first index, then the slots are added in order.
// OP: sanitizer_ops::chunks_sum
Tensor chunks_sum(Tensor x) {
  std::vector<double> values = values_of(x, "chunks_sum: x");
  int64_t n = static_cast<int64_t>(values.size());
  const double* in = values.data();
  std::vector<double> partial(static_cast<size_t>(n), 0.0);
  torch::stable::parallel_for(0, n, 1, [&](int64_t from, int64_t to) { partial[from] = sum_of(in, from, to); });
  double s = 0;
  for (double p : partial) s += p;
  Tensor out = one_double(x);
  *static_cast<double*>(out.data_ptr()) = s;
  return out;
}

// Each chunk adds into one total, unsynchronized.
// OP: sanitizer_ops::chunks_sum_shared
// EXPECT: sanitizer.thread
Tensor chunks_sum_shared(Tensor x) {
  std::vector<double> values = values_of(x, "chunks_sum_shared: x");
  int64_t n = static_cast<int64_t>(values.size());
  const double* in = values.data();
  double total = 0;
  torch::stable::parallel_for(0, n, 1, [&](int64_t from, int64_t to) {
    double s = sum_of(in, from, to);
    total += s;  // EXPECT-LINE: data race
  });
  Tensor out = one_double(x);
  *static_cast<double*>(out.data_ptr()) = total;
  return out;
}

}  // namespace

STABLE_TORCH_LIBRARY(sanitizer_ops, m) {
  m.def("window_max(Tensor x) -> Tensor");
  m.def("window_max_pairs(Tensor x) -> Tensor");
  m.def("running_sum(Tensor x) -> Tensor");
  m.def("running_sum_sentinel(Tensor x) -> Tensor");
  m.def("tail_sum(Tensor x) -> Tensor");
  m.def("tail_sum_dangling(Tensor x) -> Tensor");
  m.def("bit_hash(Tensor x) -> Tensor");
  m.def("bit_hash_signed(Tensor x) -> Tensor");
  m.def("halves_sum(Tensor x) -> Tensor");
  m.def("halves_sum_shared(Tensor x) -> Tensor");
  m.def("chunks_sum(Tensor x) -> Tensor");
  m.def("chunks_sum_shared(Tensor x) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(sanitizer_ops, CPU, m) {
  m.impl("window_max", TORCH_BOX(&window_max));
  m.impl("window_max_pairs", TORCH_BOX(&window_max_pairs));
  m.impl("running_sum", TORCH_BOX(&running_sum));
  m.impl("running_sum_sentinel", TORCH_BOX(&running_sum_sentinel));
  m.impl("tail_sum", TORCH_BOX(&tail_sum));
  m.impl("tail_sum_dangling", TORCH_BOX(&tail_sum_dangling));
  m.impl("bit_hash", TORCH_BOX(&bit_hash));
  m.impl("bit_hash_signed", TORCH_BOX(&bit_hash_signed));
  m.impl("halves_sum", TORCH_BOX(&halves_sum));
  m.impl("halves_sum_shared", TORCH_BOX(&halves_sum_shared));
  m.impl("chunks_sum", TORCH_BOX(&chunks_sum));
  m.impl("chunks_sum_shared", TORCH_BOX(&chunks_sum_shared));
}

STABLE_TORCH_LIBRARY_IMPL(sanitizer_ops, Meta, m) {
  m.impl("window_max", TORCH_BOX(&same_meta));
  m.impl("window_max_pairs", TORCH_BOX(&same_meta));
  m.impl("running_sum", TORCH_BOX(&same_meta));
  m.impl("running_sum_sentinel", TORCH_BOX(&same_meta));
  m.impl("tail_sum", TORCH_BOX(&one_meta));
  m.impl("tail_sum_dangling", TORCH_BOX(&one_meta));
  m.impl("bit_hash", TORCH_BOX(&one_meta));
  m.impl("bit_hash_signed", TORCH_BOX(&one_meta));
  m.impl("halves_sum", TORCH_BOX(&one_meta));
  m.impl("halves_sum_shared", TORCH_BOX(&one_meta));
  m.impl("chunks_sum", TORCH_BOX(&one_meta));
  m.impl("chunks_sum_shared", TORCH_BOX(&one_meta));
}
