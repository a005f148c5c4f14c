#set( $symbol_pound = '#' )
#if( $abi == "classic" )
// ${namespace}: an op library in the classic form of PyTorch's C++ custom-op tutorials (TORCH_LIBRARY,
// the C++ API of the libtorch it is built with), checked by opcheck4j. A classic library binds to one
// libtorch's C++ ABI: it is built with the headers of the runtime the harness runs on (2.13).
//
// ${namespace}::mul_add(a, b, c) = a * b + c is one correct op in three registrations:
//   mul_add_kernel  the computation: a CPU kernel and a Meta kernel (shapes only, never data)
//   mul_add         the op users call: CompositeImplicitAutograd, so gradients flow: value from the
//                   kernel, gradient from a * b through aten's own autograd (opcheck4j's docs/op-library.md).
// Written the way torch.compile and lazy cloning want it: the Meta kernel reads sym_sizes() (symbolic
// sizes stay symbolic) and sizes its output with empty_like, and the CPU kernel reads its inputs through
// const_data_ptr() (a lazily cloned input stays lazy).
${symbol_pound}include <ATen/ATen.h>
${symbol_pound}include <ATen/core/dispatch/Dispatcher.h>
${symbol_pound}include <torch/library.h>

namespace {

void check_args(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.sym_sizes() == b.sym_sizes(), "mul_add: a and b must have the same shape");
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "mul_add: a and b must have the same dtype");
  TORCH_CHECK(a.scalar_type() == at::kFloat || a.scalar_type() == at::kDouble,
              "mul_add: a must be float32 or float64");
}

// CPU: any strides in, a new contiguous tensor out; the inputs are only read.
at::Tensor mul_add_kernel_cpu(const at::Tensor& a, const at::Tensor& b, double c) {
  check_args(a, b);
  at::Tensor ac = a.contiguous();
  at::Tensor bc = b.contiguous();
  at::Tensor out = at::empty_like(ac);
  AT_DISPATCH_FLOATING_TYPES(out.scalar_type(), "mul_add_kernel", [&] {
    const scalar_t* pa = ac.const_data_ptr<scalar_t>();
    const scalar_t* pb = bc.const_data_ptr<scalar_t>();
    scalar_t* po = out.mutable_data_ptr<scalar_t>();
    for (int64_t i = 0; i < out.numel(); ++i) po[i] = static_cast<scalar_t>(pa[i] * pb[i] + c);
  });
  return out;
}

// Meta: the output's shape and dtype from the inputs' alone (meta tensors have no data), contiguous as
// the CPU kernel's is.
at::Tensor mul_add_kernel_meta(const at::Tensor& a, const at::Tensor& b, double c) {
  check_args(a, b);
  return at::empty_like(a, at::MemoryFormat::Contiguous);
}

// Composite: the kernel's value, plus m - detach(m) with m = a * b, which is zero but carries the
// gradient of a * b + c (d/da = b, d/db = a) through aten's own autograd.
at::Tensor mul_add(const at::Tensor& a, const at::Tensor& b, double c) {
  static const auto kernel = c10::Dispatcher::singleton()
      .findSchemaOrThrow("${namespace}::mul_add_kernel", "")
      .typed<at::Tensor(const at::Tensor&, const at::Tensor&, double)>();
  at::Tensor m = a * b;
  return kernel.call(a, b, c) + (m - m.detach());
}

}  // namespace

TORCH_LIBRARY(${namespace}, m) {
  m.def("mul_add_kernel(Tensor a, Tensor b, float c) -> Tensor");
  m.def("mul_add(Tensor a, Tensor b, float c) -> Tensor");
}

TORCH_LIBRARY_IMPL(${namespace}, CPU, m) {
  m.impl("mul_add_kernel", &mul_add_kernel_cpu);
}

TORCH_LIBRARY_IMPL(${namespace}, Meta, m) {
  m.impl("mul_add_kernel", &mul_add_kernel_meta);
}

TORCH_LIBRARY_IMPL(${namespace}, CompositeImplicitAutograd, m) {
  m.impl("mul_add", &mul_add);
}
#else
// ${namespace}: an op library built against PyTorch's stable ABI (2.10), checked by opcheck4j.
//
// ${namespace}::mul_add(a, b, c) = a * b + c is one correct op in three registrations:
//   mul_add_kernel  the computation: a CPU kernel and a Meta kernel (shapes only, never data)
//   mul_add         the op users call: CompositeImplicitAutograd, so gradients flow. The 2.10 stable
//                   ABI cannot create autograd nodes; a composite of differentiable aten ops can:
//                   value from the kernel, gradient from a * b (opcheck4j's docs/op-library.md).
// The CPU kernel reads its inputs through const_data_ptr() (a lazily cloned input stays lazy) and both
// kernels size their output with empty_like. The stable ABI has no symbolic sizes (SymInt): the Meta
// kernel's shape check reads sizes(), which torch.compile specialises on (it recompiles for another
// shape). PyTorch passes that; opcheck4j notes it (trace.specialization, a note, not a warning).
${symbol_pound}include <torch/csrc/stable/library.h>
${symbol_pound}include <torch/csrc/stable/ops.h>
${symbol_pound}include <torch/csrc/stable/tensor.h>
${symbol_pound}include <torch/headeronly/core/ScalarType.h>
${symbol_pound}include <torch/headeronly/util/Exception.h>

${symbol_pound}include <array>
${symbol_pound}include <vector>

using torch::stable::Tensor;
using torch::headeronly::ScalarType;

namespace {

// Calls an operator by name through the stable dispatcher boundary; returns its one result.
template <size_t N>
Tensor call(const char* name, const char* overload, std::array<StableIValue, N> stack) {
  STABLE_TORCH_ERROR_CODE_CHECK(torch_call_dispatcher(name, overload, stack.data(), TORCH_ABI_VERSION));
  return torch::stable::detail::to<Tensor>(stack[0]);
}

void check_args(const Tensor& a, const Tensor& b) {
  auto as = a.sizes();
  auto bs = b.sizes();
  STD_TORCH_CHECK(std::vector<int64_t>(as.begin(), as.end()) == std::vector<int64_t>(bs.begin(), bs.end()),
                  "mul_add: a and b must have the same shape");
  STD_TORCH_CHECK(a.scalar_type() == b.scalar_type(), "mul_add: a and b must have the same dtype");
  STD_TORCH_CHECK(a.scalar_type() == ScalarType::Float || a.scalar_type() == ScalarType::Double,
                  "mul_add: a must be float32 or float64");
}

template <class T>
void mul_add_loop(const Tensor& a, const Tensor& b, double c, Tensor& out) {
  const T* pa = static_cast<const T*>(a.const_data_ptr());
  const T* pb = static_cast<const T*>(b.const_data_ptr());
  T* po = static_cast<T*>(out.mutable_data_ptr());
  for (int64_t i = 0; i < out.numel(); ++i) po[i] = static_cast<T>(pa[i] * pb[i] + c);
}

// CPU: any strides in, a new contiguous tensor out; the inputs are only read.
Tensor mul_add_kernel_cpu(Tensor a, Tensor b, double c) {
  check_args(a, b);
  Tensor ac = torch::stable::contiguous(a);
  Tensor bc = torch::stable::contiguous(b);
  Tensor out = torch::stable::empty_like(ac);
  if (out.scalar_type() == ScalarType::Double) {
    mul_add_loop<double>(ac, bc, c, out);
  } else {
    mul_add_loop<float>(ac, bc, c, out);
  }
  return out;
}

// Meta: the output's shape and dtype from the inputs' alone (meta tensors have no data), contiguous as
// the CPU kernel's is.
Tensor mul_add_kernel_meta(Tensor a, Tensor b, double c) {
  check_args(a, b);
  return torch::stable::empty_like(torch::stable::contiguous(a));
}

// Composite: the kernel's value, plus m - detach(m) with m = a * b, which is zero but carries the
// gradient of a * b + c (d/da = b, d/db = a) through aten's own autograd.
Tensor mul_add(Tensor a, Tensor b, double c) {
  using torch::stable::detail::from;
  Tensor value = call<3>("${namespace}::mul_add_kernel", "", {from(a), from(b), from(c)});
  Tensor m = call<2>("aten::mul", "Tensor", {from(a), from(b)});
  Tensor zero = torch::stable::subtract(m, call<1>("aten::detach", "", {from(m)}));
  return torch::stable::subtract(value, zero, -1.0);
}

}  // namespace

STABLE_TORCH_LIBRARY(${namespace}, m) {
  m.def("mul_add_kernel(Tensor a, Tensor b, float c) -> Tensor");
  m.def("mul_add(Tensor a, Tensor b, float c) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(${namespace}, CPU, m) {
  m.impl("mul_add_kernel", TORCH_BOX(&mul_add_kernel_cpu));
}

STABLE_TORCH_LIBRARY_IMPL(${namespace}, Meta, m) {
  m.impl("mul_add_kernel", TORCH_BOX(&mul_add_kernel_meta));
}

STABLE_TORCH_LIBRARY_IMPL(${namespace}, CompositeImplicitAutograd, m) {
  m.impl("mul_add", TORCH_BOX(&mul_add));
}
#end
