// Whether a tensor's storage is still copy-on-write, for memory.cow-input
// (dev.opcheck4j.checks.memory.CowInputCheck): the check gives the kernel lazy clones
// (aten::_lazy_clone, which the dispatcher reaches from Java) and asks afterwards whether they are still
// lazy. c10::impl::cow::is_cow_data_ptr, which torch._C._is_cow_tensor calls, is not in the JavaCPP
// presets.
#include <ATen/ATen.h>
#include <c10/core/impl/COW.h>
#include <torch/library.h>

namespace {

// torch._C._is_cow_tensor: looks at the storage's DataPtr only (the const accessor: asking does not
// materialize it).
bool is_cow(const at::Tensor& t) {
  return t.defined() && t.has_storage() && c10::impl::cow::is_cow_data_ptr(t.storage().data_ptr());
}

// The capability's own self-test: a lazy clone and its base are COW, reading the clone through a const
// pointer keeps it so, taking a mutable pointer materializes it and leaves the base COW. Returns 1, or
// raises saying what did not hold.
int64_t cow_self_test() {
  at::Tensor base = at::arange(4, at::kFloat);
  at::Tensor lazy = at::_lazy_clone(base);
  TORCH_CHECK(is_cow(base) && is_cow(lazy), "aten::_lazy_clone did not make a copy-on-write pair");
  float sum = 0;
  for (int i = 0; i < 4; ++i) sum += lazy.const_data_ptr<float>()[i];
  TORCH_CHECK(sum == 6 && is_cow(lazy), "reading a lazy clone through const_data_ptr materialized it");
  (void)lazy.mutable_data_ptr<float>();
  TORCH_CHECK(!is_cow(lazy), "mutable_data_ptr did not materialize a lazy clone");
  TORCH_CHECK(is_cow(base), "materializing a lazy clone changed its base");
  return 1;
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(opcheck4j, m) {
  m.def("is_cow(Tensor t) -> bool", &is_cow);
  m.def("cow_self_test() -> int", &cow_self_test);
}
