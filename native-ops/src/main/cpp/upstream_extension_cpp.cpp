// Real-code corpus (issue 17 §5): operators whose behaviour is modelled on the stable-ABI variant of
// PyTorch's custom C++ operator tutorial.
//
// Behaviour modelled on github.com/pytorch/extension-cpp,
//   extension_cpp_stable/extension_cpp_stable/csrc/muladd.cpp
//   @ 715520d94a6d9a7bf06778c5325d29cf5429dfef (kernels, schemas, CPU registrations), and
//   extension_cpp_stable/extension_cpp_stable/ops.py
//   @ a851af5f941462b7bfcba60491467b0dd456c5fc (register_fake for mymuladd and mymul,
//   register_autograd for mymuladd).
// The code is ours; what is upstream's is the contract the corpus keeps: the schema strings, the CPU
// registrations, which arguments each kernel checks and which it does not, the float arithmetic, and
// the fake kernels' answers.
// The Python half of that contract, as far as the JVM can hold it:
// - register_fake: to the dispatcher a Python fake kernel is a kernel at the Meta key (what
//   FakeTensor mode runs), so it is written here as a Meta kernel making the same torch._check()s
//   and answering torch.empty_like(a); opcheck4j and real opcheck (which loads only this .so) then see
//   the same fake contract.
// - register_autograd (mymuladd's backward via mymul) is NOT reproduced: the 2.10 stable ABI cannot
//   register an Autograd kernel from C++, and the JVM cannot run the Python. mymuladd therefore has
//   no Autograd kernel here; the specs give it no requires_grad input, and neither harness is asked
//   to check its gradients.
// Upstream's library also defines an empty Python module init so that `import` loads the .so; a
// library opened by dlopen or torch.ops.load_library needs none, and this build links no Python.
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/macros/Macros.h>

namespace {

using torch::headeronly::DeviceType;
using torch::headeronly::ScalarType;
using torch::stable::Tensor;

bool is_float32(const Tensor& t) {
  return t.scalar_type() == ScalarType::Float;
}

bool on_cpu(const Tensor& t) {
  return t.device().type() == DeviceType::CPU;
}

// The checks upstream's two binary CPU kernels make, in upstream's order: equal sizes, float32, CPU.
// Strides are not checked: the kernels make both inputs contiguous first.
void check_binary_float_cpu(const Tensor& a, const Tensor& b) {
  STD_TORCH_CHECK(a.sizes().equals(b.sizes()));
  STD_TORCH_CHECK(is_float32(a));
  STD_TORCH_CHECK(is_float32(b));
  STD_TORCH_CHECK(on_cpu(a));
  STD_TORCH_CHECK(on_cpu(b));
}

// Applies combine(x, y) elementwise over contiguous copies of a and b into a new tensor made with
// empty_like(contiguous a). That last choice is the heart of the mymul and mymuladd findings: for a
// transposed a the result is row-major, while the fake kernels below answer empty_like(a) and keep a's
// transposed strides. combine's value is narrowed to float on store, so mymuladd's "+ c" is done in
// double, as upstream's expression does.
template <typename Combine>
Tensor combine_elementwise(const Tensor& a, const Tensor& b, Combine combine) {
  const Tensor lhs = torch::stable::contiguous(a);
  const Tensor rhs = torch::stable::contiguous(b);
  Tensor result = torch::stable::empty_like(lhs);
  const float* x = lhs.const_data_ptr<float>();
  const float* y = rhs.const_data_ptr<float>();
  float* z = result.mutable_data_ptr<float>();
  const int64_t n = result.numel();
  for (int64_t k = 0; k < n; ++k) {
    z[k] = combine(x[k], y[k]);
  }
  return result;
}

// mymuladd (CPU): a * b + c.
Tensor multiply_add_cpu(const Tensor& a, const Tensor& b, double c) {
  check_binary_float_cpu(a, b);
  return combine_elementwise(a, b, [c](float x, float y) { return x * y + c; });
}

// mymul (CPU): a * b.
Tensor multiply_cpu(const Tensor& a, const Tensor& b) {
  check_binary_float_cpu(a, b);
  return combine_elementwise(a, b, [](float x, float y) { return x * y; });
}

// myadd_out (CPU, schema "Tensor(a!) out -> ()"): writes a + b into out and returns nothing. out must
// match b's sizes, be float32, contiguous and on CPU; a and b are read through contiguous copies.
void add_into_cpu(const Tensor& a, const Tensor& b, Tensor& out) {
  STD_TORCH_CHECK(a.sizes().equals(b.sizes()));
  STD_TORCH_CHECK(b.sizes().equals(out.sizes()));
  STD_TORCH_CHECK(is_float32(a));
  STD_TORCH_CHECK(is_float32(b));
  STD_TORCH_CHECK(is_float32(out));
  STD_TORCH_CHECK(out.is_contiguous());
  STD_TORCH_CHECK(on_cpu(a));
  STD_TORCH_CHECK(on_cpu(b));
  STD_TORCH_CHECK(on_cpu(out));

  const Tensor lhs = torch::stable::contiguous(a);
  const Tensor rhs = torch::stable::contiguous(b);
  const float* x = lhs.const_data_ptr<float>();
  const float* y = rhs.const_data_ptr<float>();
  float* z = out.mutable_data_ptr<float>();
  const int64_t n = out.numel();
  for (int64_t k = 0; k < n; ++k) {
    z[k] = x[k] + y[k];
  }
}

// The fake kernels of ops.py for mymuladd and mymul, as Meta kernels: the same torch._check()s (sizes,
// float32, and a device check that two meta tensors always pass) and the answer empty_like(a), which
// keeps a's strides. Upstream registers no fake kernel for myadd_out, which returns nothing.
Tensor binary_fake(const Tensor& a, const Tensor& b) {
  STD_TORCH_CHECK(a.sizes().equals(b.sizes()));
  STD_TORCH_CHECK(is_float32(a));
  STD_TORCH_CHECK(is_float32(b));
  STD_TORCH_CHECK(a.device().type() == b.device().type());
  return torch::stable::empty_like(a);
}

Tensor multiply_add_fake(const Tensor& a, const Tensor& b, double) {
  return binary_fake(a, b);
}

Tensor multiply_fake(const Tensor& a, const Tensor& b) {
  return binary_fake(a, b);
}

} // namespace

STABLE_TORCH_LIBRARY(extension_cpp_stable, m) {
  m.def("mymuladd(Tensor a, Tensor b, float c) -> Tensor");
  m.def("mymul(Tensor a, Tensor b) -> Tensor");
  m.def("myadd_out(Tensor a, Tensor b, Tensor(a!) out) -> ()");
}

STABLE_TORCH_LIBRARY_IMPL(extension_cpp_stable, CPU, m) {
  m.impl("mymuladd", TORCH_BOX(&multiply_add_cpu));
  m.impl("mymul", TORCH_BOX(&multiply_cpu));
  m.impl("myadd_out", TORCH_BOX(&add_into_cpu));
}

STABLE_TORCH_LIBRARY_IMPL(extension_cpp_stable, Meta, m) {
  m.impl("mymuladd", TORCH_BOX(&multiply_add_fake));
  m.impl("mymul", TORCH_BOX(&multiply_fake));
}
