// Memory safety (issue 31): for each class of memory error (and a bool read as a byte), an op with the defect, marked with the one
// check that must trip (`// OP:` / `// EXPECT:`), and its good twin, which must pass everything. Each
// defect is invisible in the op's values: the bytes read out of bounds are loaded but never used, and
// the element left unwritten reads as whatever the allocator handed out. torch.library.opcheck 2.14.1
// passes all of them (fixtures/specs/memory/real-opcheck.json).
#include "kernels.h"

#include <cstring>

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
    body(static_cast<const double*>(xc.data_ptr()), static_cast<double*>(out.data_ptr()), xc.numel());
  } else {
    body(static_cast<const float*>(xc.data_ptr()), static_cast<float*>(out.data_ptr()), xc.numel());
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

// ---- A bool read as a number. count_true(mask) = the number of true elements, as an int64 0-d tensor.
// PyTorch reads any nonzero byte of bool storage as true.

Tensor count_true_with(const Tensor& mask, const char* name, int64_t (*count)(const uint8_t*, int64_t)) {
  STD_TORCH_CHECK(mask.scalar_type() == ScalarType::Bool, name, ": mask must be bool");
  Tensor mc = torch::stable::contiguous(mask);
  Tensor out = torch::stable::new_empty(mc, {}, ScalarType::Long);
  *static_cast<int64_t*>(out.data_ptr()) = count(static_cast<const uint8_t*>(mc.data_ptr()), mc.numel());
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

}  // namespace

STABLE_TORCH_LIBRARY(memory_ops, m) {
  m.def("half_shift(Tensor x) -> Tensor");
  m.def("half_shift_overread(Tensor x) -> Tensor");
  m.def("half_shift_back(Tensor x) -> Tensor");
  m.def("half_shift_back_overread(Tensor x) -> Tensor");
  m.def("double_pairs(Tensor x) -> Tensor");
  m.def("double_pairs_no_tail(Tensor x) -> Tensor");
  m.def("count_true(Tensor mask) -> Tensor");
  m.def("count_true_bytes(Tensor mask) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(memory_ops, CPU, m) {
  m.impl("half_shift", TORCH_BOX(&half_shift));
  m.impl("half_shift_overread", TORCH_BOX(&half_shift_overread));
  m.impl("half_shift_back", TORCH_BOX(&half_shift_back));
  m.impl("half_shift_back_overread", TORCH_BOX(&half_shift_back_overread));
  m.impl("double_pairs", TORCH_BOX(&double_pairs));
  m.impl("double_pairs_no_tail", TORCH_BOX(&double_pairs_no_tail));
  m.impl("count_true", TORCH_BOX(&count_true));
  m.impl("count_true_bytes", TORCH_BOX(&count_true_bytes));
}

STABLE_TORCH_LIBRARY_IMPL(memory_ops, Meta, m) {
  m.impl("half_shift", TORCH_BOX(&elementwise_meta));
  m.impl("half_shift_overread", TORCH_BOX(&elementwise_meta));
  m.impl("half_shift_back", TORCH_BOX(&elementwise_meta));
  m.impl("half_shift_back_overread", TORCH_BOX(&elementwise_meta));
  m.impl("double_pairs", TORCH_BOX(&elementwise_meta));
  m.impl("double_pairs_no_tail", TORCH_BOX(&elementwise_meta));
  m.impl("count_true", TORCH_BOX(&count_true_meta));
  m.impl("count_true_bytes", TORCH_BOX(&count_true_meta));
}
