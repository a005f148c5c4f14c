// Issue 32: tags that lie, and tags that change what a check may ask. For each tag a correct op (no
// EXPECT: every check passes or is skipped with the tag as its reason) and one with one defect, marked with
// the checks that must trip (`// OP:` / `// EXPECT:`).
//
// Built for the stable ABI of 2.13 (op_library(... TARGET_VERSION 0x020d...)): each op registers its tags
// through StableLibrary::def(schema, tags), which 2.12 added, so the dispatcher reports them and the checks
// judge registered tags; fixtures/specs/tags/tags_ops.json declares none. (A build for 2.10's stable ABI,
// which defines ops without tags, could only have the spec declare them; OpTagsTests keeps that road.)
#include "kernels.h"

#include <torch/headeronly/core/enum_tag.h>

#include <algorithm>

using namespace opcheck4j;

namespace {

// The Meta kernel of the float-only kernels: what they check, and nothing else.
Tensor float_meta(Tensor x) {
  check_floating(x, "x");
  return torch::stable::new_empty(x, x.sizes());
}

// ---- pt2_compliant_tag: the op passes every opcheck test, or the tag is not earned.

// 2x, with a Meta kernel: every opcheck-equivalent check passes, so the tag is earned.
// OP: tags_ops::scale
Tensor scale(Tensor x) {
  check_floating(x, "scale: x");
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return 2.0 * elem(xc, i); });
}

// The same kernel with a Meta kernel that gets the output's sizes wrong (transposed): opcheck's
// test_faketensor fails (fake.metadata), and the op still claims pt2_compliant_tag, which PyTorch's
// test_pt2_compliant_tag calls a defect of its own.
// OP: tags_ops::scale_wrong_meta
// EXPECT: fake.metadata, tags.pt2-compliant
Tensor transposed_meta(Tensor x) {
  check_floating(x, "x");
  std::vector<int64_t> sizes = sizes_of(x);
  std::reverse(sizes.begin(), sizes.end());
  return torch::stable::new_empty(x, sizes);
}

// ---- nondeterministic_seeded: the op draws from torch's generator, so two calls agree only under one seed.

// x * m, m a mask drawn by aten::bernoulli from torch's default generator (p = 0.5): tagged, it is
// compared under one seed and passes determinism.
// OP: tags_ops::dropout
Tensor dropout(Tensor x) {
  check_floating(x, "dropout: x");
  Tensor p = torch::stable::new_empty(x, x.sizes());
  torch::stable::fill_(p, 0.5);
  Tensor mask = aten<2>("aten::bernoulli", "",
      {torch::stable::detail::from(p), torch::stable::detail::from(std::nullopt)});
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i) * elem(mask, i); });
}

// The same kernel without the tag: two calls on one input draw two masks, and nothing said they may.
// OP: tags_ops::dropout_untagged
// EXPECT: determinism

// ---- dynamic_output_shape: the output's size depends on the input's values.

// The elements of x that are > 0, as a 1-D tensor. Its Meta kernel cannot know how many there are and
// allocates x.numel() (an upper bound): tagged dynamic_output_shape, the fake checks do not compare it,
// as PyTorch's CrossRefFakeMode does not.
// OP: tags_ops::positive
Tensor positive(Tensor x) {
  check_floating(x, "positive: x");
  Tensor xc = torch::stable::contiguous(x);
  int64_t n = 0;
  for (int64_t i = 0; i < xc.numel(); i++) {
    n += elem(xc, i) > 0 ? 1 : 0;
  }
  Tensor out = torch::stable::new_empty(xc, {n});
  for (int64_t i = 0, k = 0; i < xc.numel(); i++) {
    if (elem(xc, i) > 0) {
      put(out, k++, elem(xc, i));
    }
  }
  return out;
}
Tensor positive_meta(Tensor x) {
  check_floating(x, "positive: x");
  return torch::stable::new_empty(x, {x.numel()});
}

// The same kernels without the tag: the Meta kernel's size is wrong for every input with a value <= 0.
// OP: tags_ops::positive_untagged
// EXPECT: fake.metadata, trace.symbolic-sizes
// (untagged, FakeTensorMode runs its Meta kernel, whose numel() fails test_aot_dispatch_dynamic: real PyTorch
// 2.14.1 in fixtures/specs/tags/real-pytorch.json, 2.13.0 in fixtures/specs/trace/real-pytorch.json)

// ---- inplace_view: the op changes only its argument's metadata, and returns it.

// Transposes x in place (aten::t_) and returns it, as aten::t_ does; a CompositeImplicitAutograd kernel,
// so that torch.compile decomposes it into aten::t_ (a custom op may not return an alias otherwise).
// OP: tags_ops::t_
Tensor t_(Tensor x) {
  aten<1>("aten::t_", "", {torch::stable::detail::from(x)});
  return x;
}

// Transposes x in place but returns a new tensor (a copy of it): the tag says it returns x.
// OP: tags_ops::fresh_t_
// EXPECT: tags.inplace-view
Tensor fresh_t_(Tensor x) {
  aten<1>("aten::t_", "", {torch::stable::detail::from(x)});
  return torch::stable::clone(x);
}

}  // namespace

STABLE_TORCH_LIBRARY(tags_ops, m) {
  m.def("scale(Tensor x) -> Tensor", {at::Tag::pt2_compliant_tag});
  m.def("scale_wrong_meta(Tensor x) -> Tensor", {at::Tag::pt2_compliant_tag});
  m.def("dropout(Tensor x) -> Tensor", {at::Tag::nondeterministic_seeded});
  m.def("dropout_untagged(Tensor x) -> Tensor");
  m.def("positive(Tensor x) -> Tensor", {at::Tag::dynamic_output_shape});
  m.def("positive_untagged(Tensor x) -> Tensor");
  m.def("t_(Tensor(a!) x) -> Tensor(a!)", {at::Tag::inplace_view});
  m.def("fresh_t_(Tensor(a!) x) -> Tensor", {at::Tag::inplace_view});
}

STABLE_TORCH_LIBRARY_IMPL(tags_ops, CPU, m) {
  m.impl("scale", TORCH_BOX(&scale));
  m.impl("scale_wrong_meta", TORCH_BOX(&scale));
  m.impl("dropout", TORCH_BOX(&dropout));
  m.impl("dropout_untagged", TORCH_BOX(&dropout));
  m.impl("positive", TORCH_BOX(&positive));
  m.impl("positive_untagged", TORCH_BOX(&positive));
}

STABLE_TORCH_LIBRARY_IMPL(tags_ops, Meta, m) {
  m.impl("scale", TORCH_BOX(&float_meta));
  m.impl("scale_wrong_meta", TORCH_BOX(&transposed_meta));
  m.impl("dropout", TORCH_BOX(&float_meta));
  m.impl("dropout_untagged", TORCH_BOX(&float_meta));
  m.impl("positive", TORCH_BOX(&positive_meta));
  m.impl("positive_untagged", TORCH_BOX(&positive_meta));
}

STABLE_TORCH_LIBRARY_IMPL(tags_ops, CompositeImplicitAutograd, m) {
  m.impl("t_", TORCH_BOX(&t_));
  m.impl("fresh_t_", TORCH_BOX(&fresh_t_));
}
